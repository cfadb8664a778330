//! The child's environment, built from scratch: never the server's whole
//! environment, so the server's token and other secrets stay out.

/// Variables passed on from the server's environment, with the value used
/// when the server has none.
const INHERITED: &[(&str, &str)] = &[
    (
        "PATH",
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    ),
    ("HOME", "/"),
    ("LANG", "C.UTF-8"),
];

/// The environment of a child: `PATH`, `HOME` and `LANG` from the server,
/// then `extra` in order (later entries win), then `TERM=xterm-256color`
/// and `COLORTERM=truecolor`, which describe the emulator and always win.
pub fn child_env<'a>(extra: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = INHERITED
        .iter()
        .map(|&(name, fallback)| {
            let value = std::env::var(name)
                .ok()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| fallback.to_owned());
            (name.to_owned(), value)
        })
        .collect();
    let fixed = [("TERM", "xterm-256color"), ("COLORTERM", "truecolor")];
    for (name, value) in extra.into_iter().chain(fixed) {
        env.retain(|(n, _)| n != name);
        env.push((name.to_owned(), value.to_owned()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
        env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn only_the_allowed_variables_and_the_extras() {
        let env = child_env([("FOO", "1"), ("TERM", "dumb"), ("FOO", "2")]);
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "LANG", "FOO", "TERM", "COLORTERM"]);
        assert_eq!(get(&env, "FOO"), Some("2"));
        assert_eq!(get(&env, "TERM"), Some("xterm-256color"));
        assert_eq!(get(&env, "COLORTERM"), Some("truecolor"));
        assert!(get(&env, "PATH").is_some_and(|p| !p.is_empty()));
    }
}
