//! The wire's constants in the web client are what [`javascript_constants`]
//! generates: the client has no build step, so they are committed, as the
//! block of `web/protocol.js` between the two marker lines below, and this
//! test keeps it equal. After a change to a constant, run
//! `cargo test -p panecast-proto --test js_constants -- --ignored regenerate_js_constants`
//! and commit `web/protocol.js`.

use std::path::PathBuf;

use panecast_proto::javascript_constants;

const BEGIN: &str = "// ---- wire constants: generated ----\n";
const END: &str = "// ---- end of the generated wire constants ----\n";

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/protocol.js")
}

/// web/protocol.js split around its generated block: before, block, after.
fn split(js: &str) -> (&str, &str, &str) {
    let start = js
        .find(BEGIN)
        .expect("web/protocol.js has the begin marker")
        + BEGIN.len();
    let len = js[start..]
        .find(END)
        .expect("web/protocol.js has the end marker after the begin marker");
    (&js[..start], &js[start..start + len], &js[start + len..])
}

#[test]
fn the_clients_constants_are_what_proto_generates() {
    let js = std::fs::read_to_string(path()).expect("web/protocol.js is readable");
    let (_, block, _) = split(&js);
    assert!(
        block == javascript_constants(),
        "web/protocol.js's wire constants are not what panecast-proto generates: run\n  \
         cargo test -p panecast-proto --test js_constants -- --ignored regenerate_js_constants\n\
         and commit web/protocol.js"
    );
}

#[test]
#[ignore = "rewrites web/protocol.js's generated block; run by hand after changing a wire constant"]
fn regenerate_js_constants() {
    let js = std::fs::read_to_string(path()).expect("web/protocol.js is readable");
    let (before, _, after) = split(&js);
    let js = format!("{before}{}{after}", javascript_constants());
    std::fs::write(path(), js).expect("web/protocol.js is writable");
}
