//! Writes what the crate includes from `OUT_DIR`: the web client
//! (`../web`) as served, compressed and versioned (`build/web_assets.rs`).

#[path = "build/bundle.rs"]
mod bundle;
#[path = "build/web_assets.rs"]
mod web_assets;

use std::env;
use std::path::Path;

fn main() {
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=build");
    web_assets::write(Path::new(&out_dir));
}
