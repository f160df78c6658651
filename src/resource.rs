//! Processing resource types (CPU and coprocessor kinds) under all the names
//! the client has used for them.
//!
//! Architecture Invariant: depends on nothing else in the crate, so that both
//! the parsers (`trace`, `parse`) and the pure policy engine (`policy`) share
//! one vocabulary without depending on each other.
//!
//! Names, per spec/formats-log.md §3.15 and §6.5: the long names of 7.4+
//! messages (`NVIDIA GPU`, `AMD/ATI GPU`, `Intel GPU`, `Apple GPU`), the type
//! strings of client_state.xml and 7.0–7.2 messages (`NVIDIA`, `ATI`,
//! `intel_gpu`, `apple_gpu`), the 6.x names (`CUDA`, `ATI GPU`) and the XML
//! element suffixes (`coproc_cuda`, `coproc_ati`, `coproc_intel_gpu`).

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A kind of processing resource.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceType {
    /// The host's CPUs.
    Cpu,
    /// NVIDIA GPUs (CUDA / OpenCL).
    Nvidia,
    /// AMD/ATI GPUs.
    Amd,
    /// Intel GPUs.
    Intel,
    /// Apple GPUs.
    Apple,
    /// Any other coprocessor, by its raw type string.
    Other(CompactString),
}

impl ResourceType {
    /// Recognises every name the client has printed or stored for a resource.
    /// Unknown names become [`ResourceType::Other`]; the empty string gives `None`.
    pub fn from_name(name: &str) -> Option<ResourceType> {
        let name = name.trim();
        Some(match name {
            "" => return None,
            "CPU" | "cpu" => ResourceType::Cpu,
            // "NV": 6.10's rr_sim `starting` lines (rsc_string).
            "NVIDIA GPU" | "NVIDIA" | "CUDA" | "NV" | "nvidia" | "cuda" | "coproc_cuda" => {
                ResourceType::Nvidia
            }
            "AMD/ATI GPU" | "ATI GPU" | "ATI" | "ati" | "amd" | "AMD" | "coproc_ati" => {
                ResourceType::Amd
            }
            "Intel GPU" | "intel_gpu" | "INTEL" | "coproc_intel_gpu" => ResourceType::Intel,
            "Apple GPU" | "apple_gpu" | "coproc_apple_gpu" => ResourceType::Apple,
            other => ResourceType::Other(CompactString::from(other)),
        })
    }

    /// The long name used in today's messages (`rsc_name_long`).
    pub fn long_name(&self) -> &str {
        match self {
            ResourceType::Cpu => "CPU",
            ResourceType::Nvidia => "NVIDIA GPU",
            ResourceType::Amd => "AMD/ATI GPU",
            ResourceType::Intel => "Intel GPU",
            ResourceType::Apple => "Apple GPU",
            ResourceType::Other(name) => name,
        }
    }

    /// The type string used in client_state.xml and 7.0–7.2 messages (`rsc_name`).
    pub fn type_name(&self) -> &str {
        match self {
            ResourceType::Cpu => "CPU",
            ResourceType::Nvidia => "NVIDIA",
            ResourceType::Amd => "ATI",
            ResourceType::Intel => "intel_gpu",
            ResourceType::Apple => "apple_gpu",
            ResourceType::Other(name) => name,
        }
    }

    /// True for every coprocessor kind (everything but the CPU).
    pub fn is_coproc(&self) -> bool {
        !matches!(self, ResourceType::Cpu)
    }
}

impl fmt::Display for ResourceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.long_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_eras_names_map_to_one_type() {
        for name in ["NVIDIA GPU", "NVIDIA", "CUDA", "coproc_cuda"] {
            assert_eq!(ResourceType::from_name(name), Some(ResourceType::Nvidia));
        }
        for name in ["AMD/ATI GPU", "ATI GPU", "ATI"] {
            assert_eq!(ResourceType::from_name(name), Some(ResourceType::Amd));
        }
        assert_eq!(
            ResourceType::from_name("intel_gpu"),
            Some(ResourceType::Intel)
        );
        assert_eq!(ResourceType::from_name(""), None);
        assert_eq!(
            ResourceType::from_name("miner_asic"),
            Some(ResourceType::Other("miner_asic".into()))
        );
    }

    #[test]
    fn names_round_trip() {
        for rsc in [
            ResourceType::Cpu,
            ResourceType::Nvidia,
            ResourceType::Amd,
            ResourceType::Intel,
            ResourceType::Apple,
        ] {
            assert_eq!(ResourceType::from_name(rsc.long_name()), Some(rsc.clone()));
            assert_eq!(ResourceType::from_name(rsc.type_name()), Some(rsc.clone()));
        }
    }
}
