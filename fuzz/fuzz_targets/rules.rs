//! Rule-file front end: parse + check + lower arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    arbiter::fuzz::rules(&dir, data);
});
