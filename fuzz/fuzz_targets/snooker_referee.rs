//! The snooker_referee input reader: each input runs against rules/snooker_referee.rules and
//! every variant in rules/snooker_referee/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::game_input(&rules, "snooker_referee", data);
});
