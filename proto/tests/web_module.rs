//! `web/wire.js`, the web client's copy of the wire's constants, is what
//! [`javascript_module`] generates: the client has no build step, so the
//! file is committed and this test keeps it equal. After a change to a
//! constant, run
//! `cargo test -p panecast-proto --test web_module -- --ignored regenerate_web_module`
//! and commit the new `web/wire.js`.

use std::path::PathBuf;

use panecast_proto::javascript_module;

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/wire.js")
}

#[test]
fn the_committed_module_is_what_proto_generates() {
    let committed = std::fs::read_to_string(path()).unwrap_or_default();
    assert!(
        committed == javascript_module(),
        "web/wire.js is not what panecast-proto generates: run\n  \
         cargo test -p panecast-proto --test web_module -- --ignored regenerate_web_module\n\
         and commit web/wire.js"
    );
}

#[test]
#[ignore = "writes web/wire.js; run by hand after changing a wire constant"]
fn regenerate_web_module() {
    std::fs::write(path(), javascript_module()).expect("web/wire.js is writable");
}
