//! Writes what the crate includes from `OUT_DIR`: the table of character
//! widths the print path looks up (`build/width_table.rs`), and the web
//! client (`../web`) as served, compressed and versioned
//! (`build/web_assets.rs`).

#[path = "build/bundle.rs"]
mod bundle;
#[path = "build/web_assets.rs"]
mod web_assets;
#[path = "build/width_table.rs"]
mod width_table;

use std::env;
use std::path::Path;

fn main() {
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    width_table::write(Path::new(&out_dir));
    println!("cargo:rerun-if-changed=build");
    web_assets::write(Path::new(&out_dir));
}
