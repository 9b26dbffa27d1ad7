//! Whether a `.rules` buffer is a rule file at all: udev and Snort write
//! `.rules` files too, and the server leaves those alone (no diagnostics,
//! no answers). A buffer is taken for another language only when its first
//! line that is neither blank nor a comment is one of that language's
//! (anything else, a half-typed line included, is a rule file). The
//! editor setups in `editors/` test the same line (docs/editors.md).

/// The language of a buffer that is not a rule file, if it is one of
/// those that share the extension.
pub fn foreign(text: &str) -> Option<&'static str> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if is_udev(line) {
        return Some("udev rules");
    }
    is_snort(line).then_some("Snort rules")
}

/// `KERNEL=="sda"`, `SUBSYSTEM=="usb", ATTR{idVendor}=="1d6b"`: a key in
/// capitals (with an optional `{attribute}`), then an operator.
fn is_udev(line: &str) -> bool {
    let key_end =
        line.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')).unwrap_or(line.len());
    if key_end == 0 || !line.starts_with(|c: char| c.is_ascii_uppercase()) {
        return false;
    }
    let mut rest = &line[key_end..];
    if rest.starts_with('{') {
        let Some(close) = rest.find('}') else { return false };
        rest = &rest[close + 1..];
    }
    let rest = rest.trim_start();
    ["==", "!=", "+=", "-=", ":="].iter().any(|op| rest.starts_with(op))
        || (rest.starts_with('=') && !rest.starts_with("=="))
}

/// `alert tcp any any -> any 80 (...)`: an action, then a protocol; or
/// `var HOME_NET any`.
fn is_snort(line: &str) -> bool {
    const ACTIONS: [&str; 8] = ["alert", "log", "pass", "drop", "reject", "sdrop", "activate", "dynamic"];
    const PROTOCOLS: [&str; 10] = ["tcp", "udp", "icmp", "ip", "http", "tls", "dns", "smb", "ftp", "any"];
    let mut words = line.split_whitespace();
    let (Some(first), Some(second)) = (words.next(), words.next()) else { return false };
    (ACTIONS.contains(&first) && PROTOCOLS.contains(&second))
        || (["var", "ipvar", "portvar"].contains(&first) && second.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
}

#[cfg(test)]
mod tests {
    use super::foreign;

    #[test]
    fn udev_and_snort_files_are_told_from_rule_files() {
        let udev = "# USB stick\nSUBSYSTEM==\"usb\", ATTR{idVendor}==\"1d6b\", MODE=\"0666\"\n";
        assert_eq!(foreign(udev), Some("udev rules"));
        assert_eq!(foreign("ACTION==\"add\", KERNEL==\"sd*\", RUN+=\"/bin/x\"\n"), Some("udev rules"));
        let snort = "# local rules\nalert tcp any any -> any 80 (msg:\"x\"; sid:1;)\n";
        assert_eq!(foreign(snort), Some("Snort rules"));
        assert_eq!(foreign("var HOME_NET any\n"), Some("Snort rules"));
        for rules in [
            "# Get Straight\n\ngame: \"G\"\nengine: exchange\n",
            "extends: \"get_straight\"\n",
            "combination",
            "output { stay: \"S\" }",
            "log {",
            "",
            "# only a comment\n",
        ] {
            assert_eq!(foreign(rules), None, "{rules}");
        }
    }
}
