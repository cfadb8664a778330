//! Deleting a session ends everything it started, background jobs that
//! escaped the hangup included.

use serde_json::json;

use crate::common::{alive, eventually, session_id, test_config, Server};

#[test]
fn delete_ends_nohup_setsid_and_hup_ignoring_jobs() {
    let server = Server::start(test_config());
    for job in [
        "nohup sleep 1000 >/dev/null 2>&1 & echo bg=$!",
        "setsid sleep 1000 & echo bg=$!",
        "(trap '' HUP; exec sleep 1000) & echo bg=$!",
    ] {
        let id = session_id(&server.create(&["sh", "-c", &format!("{job}; exec cat")], json!({})));
        let pid = server.background_pid(&id);
        assert!(alive(pid), "{job}: started");
        assert_eq!(server.delete(&id).status, 200);
        eventually(&format!("{job}: the job to end"), || {
            (!alive(pid)).then_some(())
        });
    }
}
