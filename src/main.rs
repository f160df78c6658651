//! The `boinc-audit` command.

fn main() {
    println!("boinc-audit");
}
