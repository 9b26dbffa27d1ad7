//! The video_poker input reader: each input runs against rules/video_poker.rules and
//! every variant in rules/video_poker/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::game_input(&rules, "video_poker", data);
});
