//! The house_of_cards input reader: each input runs against rules/house_of_cards.rules and
//! every variant in rules/house_of_cards/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::game_input(&rules, "house_of_cards", data);
});
