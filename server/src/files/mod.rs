//! Files in and out of a session (profiles with `files = true`): where
//! they go (the working directory of the session's foreground process,
//! [`place`]), which names an upload may take ([`name`]), and the worker
//! process that reads and writes them as the session's user ([`worker`]).

pub mod name;
pub mod place;
pub mod worker;

pub use name::{check_name, check_path, NameError};
pub use place::{Place, PlaceError};
pub use worker::{Download, FileError, Upload};
