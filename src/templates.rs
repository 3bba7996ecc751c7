//! Prompt templates: embedded at build time, overridable from
//! `<config dir>/templates/<name>`, rendered by replacing `{{ key }}` placeholders.

use crate::config::Config;
use crate::error::{Error, Result};

/// The embedded templates, by file name.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "stage_one_system.md",
        include_str!("../templates/stage_one_system.md"),
    ),
    (
        "stage_one_input.md",
        include_str!("../templates/stage_one_input.md"),
    ),
    (
        "consolidation.md",
        include_str!("../templates/consolidation.md"),
    ),
    ("read_path.md", include_str!("../templates/read_path.md")),
];

/// The text of template `name`: the user's override if present, else the embedded one.
pub fn load(cfg: &Config, name: &str) -> Result<String> {
    let override_path = cfg.config_dir.join("templates").join(name);
    if override_path.is_file() {
        return std::fs::read_to_string(&override_path)
            .map_err(|e| Error::failed(format!("{}: {e}", override_path.display())));
    }
    EMBEDDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text.to_string())
        .ok_or_else(|| Error::failed(format!("no template named {name}")))
}

/// Replaces every `{{ key }}` (spaces optional) with its value, in one pass, so
/// values that themselves contain `{{ … }}` are never expanded.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let key = after[..end].trim();
                match values.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[start..start + 2 + end + 2]),
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_placeholders_once() {
        let t = "a {{ x }} b {{y}} c {{ unknown }} d {{";
        assert_eq!(
            render(t, &[("x", "{{ y }}"), ("y", "2")]),
            "a {{ y }} b 2 c {{ unknown }} d {{"
        );
    }
}
