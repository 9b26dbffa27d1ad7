// Compiles the parser tree-sitter generated from grammar.js (committed).
fn main() {
    let src = std::path::Path::new("src");
    let mut c = cc::Build::new();
    c.std("c11").include(src).file(src.join("parser.c"));
    // Generated code: its warnings are not ours to fix.
    c.warnings(false);
    c.compile("tree-sitter-arbiter");
    println!("cargo:rerun-if-changed=src/parser.c");
}
