//! Every game's input reader: the first line of an input names a bundled
//! game (`havannah`), the rest is run against rules/GAME.rules and every
//! variant in rules/GAME/ (see `arbiter::fuzz::any_game_input`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::any_game_input(&rules, data);
});
