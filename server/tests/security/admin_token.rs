//! The admin token is long enough not to be guessed: `serve` refuses one
//! under 16 characters however it is given, with a message and a non-zero
//! exit, before it listens.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn serve(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied());
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    command.output().expect("the panecast binary runs")
}

#[test]
fn a_short_admin_token_is_refused_from_every_source() {
    let dir = std::env::temp_dir().join(format!("panecast-short-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("token");
    std::fs::write(&file, "x\n").expect("token file");
    // Readable by its owner only, as an isolated server demands, so that
    // only its length is refused.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let file = file.to_str().expect("UTF-8 path");
    for (what, args, env) in [
        ("--token", vec!["--token", "x"], vec![]),
        (
            "PANECAST_TOKEN",
            vec![],
            vec![("PANECAST_TOKEN", "fifteen-chars15")],
        ),
        ("--token-file", vec!["--token-file", file], vec![]),
    ] {
        let out = serve(&args, &env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert!(stderr.contains("16 to 256"), "{what}: {stderr}");
        assert!(out.stdout.is_empty(), "{what}: it never listened");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
