//! `arbiter man`: one complete manual page. clap_mangen renders the
//! command's page, whose SUBCOMMANDS section only names `arbiter-NAME(1)`;
//! each subcommand's own synopsis, description, options and examples follow
//! it here, as sections of the same page (their headings one level down),
//! so that a single installed file documents every command and option.

use clap_mangen::Man;

/// The manual page, in roff.
pub fn page(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    let mut cmd = cmd;
    cmd.build();
    let mut page = Vec::new();
    Man::new(cmd.clone()).render(&mut page)?;
    for sub in cmd.get_subcommands() {
        let name = format!("{} {}", cmd.get_name(), sub.get_name());
        let man = Man::new(sub.clone().bin_name(name.clone()).display_name(name.clone()));
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        man.render_options_section(&mut part)?;
        man.render_extra_section(&mut part)?;
        page.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        for line in String::from_utf8_lossy(&part).lines() {
            // clap_mangen calls the text after the options EXTRA; a
            // subcommand's is its examples.
            let line = match line.strip_prefix(".SH ") {
                Some("EXTRA") => ".SS EXAMPLES".to_string(),
                Some(rest) => format!(".SS {rest}"),
                None => line.to_string(),
            };
            page.extend_from_slice(line.as_bytes());
            page.push(b'\n');
        }
    }
    Ok(page)
}
