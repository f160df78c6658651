//! What a client keeps of each project's timers across a restart: the
//! state file holds them all (project.cpp `PROJECT::write_state`), but not
//! every release reads them back (`PROJECT::parse_state`). Read from
//! BOINC's history at each client_release tag.
//!
//! Architecture Invariant: pure predicates over a client version.

use crate::trace::ClientVersion;

/// Whether a client of `version` restores each project's scheduler-RPC
/// deferral (`<min_rpc_time>`) at its start. 43c5715729 (2013-11-10)
/// parsed it into a scratch variable, afef39ed6f (2014-12-21) restored it,
/// 21817420af (2015-08-19, first tag 7.8.0) dropped it again; the release
/// branches took these at different tags (measured at every tag: dropped
/// at 7.2.29, 7.2.32, 7.2.34-7.4.37, 7.4.39 and from 7.6.8 on, master
/// included). Its failure count (`<nrpc_failures>`) is always restored.
pub fn restores_rpc_deferral(version: ClientVersion) -> bool {
    let ClientVersion {
        major,
        minor,
        release,
    } = version;
    match (major, minor) {
        (..=6, _) | (7, 0..=1) => true,
        (7, 2) => release <= 28 || release == 31 || release == 33,
        (7, 3) => false,
        (7, 4) => release == 38 || release >= 40,
        (7, 5) => true,
        (7, 6) => release <= 7,
        _ => false,
    }
}

/// Whether a client of `version` restores each project's work-fetch
/// (resource) backoffs at its start. 6.x wrote and read
/// `<cpu_backoff_time>`; from 7.0 on write_state writes
/// `<rsc_backoff_time>` entries that parse_rsc_param never accepts for the
/// CPU (`rsc_type > 0`) and whose `<value>` it never reads (it parses a
/// `<rsc_type>` tag instead), master included: every backoff starts at 0.
pub fn restores_resource_backoffs(version: ClientVersion) -> bool {
    version.major < 7
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32, release: u32) -> ClientVersion {
        ClientVersion {
            major,
            minor,
            release,
        }
    }

    #[test]
    fn deferrals_restored_by_release() {
        let restored: Vec<bool> = [
            v(6, 10, 60),
            v(7, 0, 27),
            v(7, 2, 28),
            v(7, 2, 29),
            v(7, 2, 31),
            v(7, 2, 42),
            v(7, 4, 37),
            v(7, 4, 38),
            v(7, 4, 39),
            v(7, 4, 42),
            v(7, 6, 7),
            v(7, 6, 8),
            v(7, 20, 5),
            v(8, 2, 14),
        ]
        .into_iter()
        .map(restores_rpc_deferral)
        .collect();
        assert_eq!(
            restored,
            [
                true, true, true, false, true, false, false, true, false, true, true, false, false,
                false
            ]
        );
        assert!(restores_resource_backoffs(v(6, 12, 43)));
        assert!(!restores_resource_backoffs(v(7, 20, 5)));
    }
}
