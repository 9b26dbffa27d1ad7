//! The get_straight input reader: each input runs against rules/get_straight.rules and
//! every variant in rules/get_straight/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::game_input(&rules, "get_straight", data);
});
