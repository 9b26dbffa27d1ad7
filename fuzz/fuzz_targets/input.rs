//! Game input readers: the first byte picks a bundled rule file (sorted
//! paths under rules/), the rest is the input.
#![no_main]
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn files() -> &'static [PathBuf] {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FILES.get_or_init(|| arbiter::fuzz::bundled_rule_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules")))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else { return };
    let files = files();
    if files.is_empty() {
        return;
    }
    arbiter::fuzz::input(&files[pick as usize % files.len()], input);
});
