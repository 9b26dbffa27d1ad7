//! Embeds every rule file under rules/ into the binary, so that an
//! installed `arbiter` can run a bundled game by name from any directory
//! (`arbiter run get_straight deals.txt`), and links the binary statically
//! where the C library allows it ([`link_statically`]).

use std::path::{Path, PathBuf};
use std::process::Command;

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rules") {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("rules");
    println!("cargo:rerun-if-changed=rules");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from(
        "/// Rule files bundled from rules/: (path under rules/, text).\npub(super) static BUNDLED: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed=rules/{f}");
        code.push_str(&format!("    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rules/{f}\"))),\n"));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("bundled.rs"), code).expect("OUT_DIR is writable");
    // The tests check the binary against what was decided here.
    let linked = if link_statically(&out) { "static" } else { "dynamic" };
    println!("cargo:rustc-env=ARBITER_LINKED={linked}");
}

/// Links the `arbiter` binary as a static position-independent executable
/// on Linux with glibc, when the C compiler finds glibc's static archives
/// and a probe program links that way and runs: no shared library is
/// loaded at start-up (nor its symbols bound, nor libgcc_s's processor
/// detection run), which makes every run about 0.4 ms shorter (a tenth of
/// Havannah's large input). The addresses are still randomised. Anything
/// else, a cross build, a linker configured for the target, or
/// `ARBITER_LINK=dynamic`, keeps the usual dynamic binary.
///
/// Rust's own switch, `-C target-feature=+crt-static`, cannot be set for
/// one binary: set for the target, it also applies to the procedural
/// macros this crate builds (clap's, pest's), which rustc then refuses to
/// build. So the binary's link gets `-static-pie`, and a directory searched
/// before the system's in which `libc.so`, `libm.so`, `libgcc_s.so` and the
/// rest are linker scripts naming the static archives: the libraries rustc
/// asks for by name resolve to those.
/// The libraries rustc links by name on this target, in its order, and
/// the static archives that stand for each.
const LINKED_BY_NAME: [(&str, &[&str]); 7] = [
    ("gcc_s", &["libgcc_eh.a", "libgcc.a"]),
    ("util", &["libutil.a"]),
    ("rt", &["librt.a"]),
    ("pthread", &["libpthread.a"]),
    ("m", &["libm.a"]),
    ("dl", &["libdl.a"]),
    ("c", &["libc.a", "libgcc_eh.a", "libgcc.a"]),
];

fn link_statically(out: &Path) -> bool {
    println!("cargo:rerun-if-env-changed=ARBITER_LINK");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("ARBITER_LINK") == "dynamic"
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("HOST") != var("TARGET")
        || std::env::var_os("RUSTC_LINKER").is_some()
    {
        return false;
    }
    // The archive the C compiler links for `name`, when it has one.
    let archive = |name: &str| -> Option<PathBuf> {
        let found = Command::new("cc").arg(format!("-print-file-name={name}")).output().ok()?;
        let path = PathBuf::from(String::from_utf8(found.stdout).ok()?.trim());
        (path.is_absolute() && path.is_file()).then_some(path)
    };
    let dir = out.join("static-libs");
    if std::fs::create_dir_all(&dir).is_err() {
        return false;
    }
    for (lib, archives) in LINKED_BY_NAME {
        let Some(paths) = archives.iter().map(|a| archive(a)).collect::<Option<Vec<_>>>() else {
            return false;
        };
        let names: Vec<String> = paths.iter().map(|p| format!("\"{}\"", p.display())).collect();
        if std::fs::write(dir.join(format!("lib{lib}.so")), format!("GROUP({})\n", names.join(" "))).is_err() {
            return false;
        }
    }
    // The probe: a C program linked as the binary will be, run once.
    let (source, probe) = (out.join("probe.c"), out.join("probe"));
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let linked = Command::new("cc")
        .arg("-static-pie")
        .arg(&source)
        .arg("-o")
        .arg(&probe)
        .arg(format!("-L{}", dir.display()))
        .arg("-Wl,-Bdynamic")
        .args(LINKED_BY_NAME.map(|(lib, _)| format!("-l{lib}")))
        .output()
        .is_ok_and(|o| o.status.success());
    if !linked || !Command::new(&probe).status().is_ok_and(|s| s.success()) {
        return false;
    }
    println!("cargo:rustc-link-arg-bins=-static-pie");
    println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    true
}
