//! The names an upload may take and the paths a download may ask for.

/// Longest name an upload may take, in bytes (the usual `NAME_MAX`).
pub const MAX_NAME: usize = 255;

/// Longest path a download may ask for, in bytes (the usual `PATH_MAX`).
pub const MAX_PATH: usize = 4096;

/// A name or path that is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty.
    #[error("the name is empty")]
    Empty,
    /// Longer than the limit.
    #[error("the name is longer than {0} bytes")]
    TooLong(usize),
    /// Holds a NUL byte.
    #[error("the name holds a NUL byte")]
    Nul,
    /// An upload's name holds a `/`.
    #[error("the name holds a '/': a file goes into the working directory itself")]
    Slash,
    /// `.` or `..`.
    #[error("'.' and '..' are not file names")]
    Dots,
    /// A download's path is absolute.
    #[error("the path is absolute: give it relative to the working directory")]
    Absolute,
}

/// Checks the name of an uploaded file: one path component, not `.` or
/// `..`, no NUL, 1 to [`MAX_NAME`] bytes.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME {
        return Err(NameError::TooLong(MAX_NAME));
    }
    if name.contains('\0') {
        return Err(NameError::Nul);
    }
    if name.contains('/') {
        return Err(NameError::Slash);
    }
    if name == "." || name == ".." {
        return Err(NameError::Dots);
    }
    Ok(())
}

/// Checks the path of a download: relative, no NUL, 1 to [`MAX_PATH`]
/// bytes. Where it leads is checked when it is opened: beneath the working
/// directory, symbolic links and `..` included.
pub fn check_path(path: &str) -> Result<(), NameError> {
    if path.is_empty() {
        return Err(NameError::Empty);
    }
    if path.len() > MAX_PATH {
        return Err(NameError::TooLong(MAX_PATH));
    }
    if path.contains('\0') {
        return Err(NameError::Nul);
    }
    if path.starts_with('/') {
        return Err(NameError::Absolute);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_names_are_one_plain_component() {
        assert_eq!(check_name("notes.txt"), Ok(()));
        assert_eq!(check_name(".hidden"), Ok(()));
        assert_eq!(check_name("..."), Ok(()));
        assert_eq!(check_name("été 2026.pdf"), Ok(()));
        assert_eq!(check_name(""), Err(NameError::Empty));
        assert_eq!(check_name("."), Err(NameError::Dots));
        assert_eq!(check_name(".."), Err(NameError::Dots));
        assert_eq!(check_name("a/b"), Err(NameError::Slash));
        assert_eq!(check_name("/etc"), Err(NameError::Slash));
        assert_eq!(check_name("a\0b"), Err(NameError::Nul));
        assert_eq!(check_name(&"x".repeat(MAX_NAME)), Ok(()));
        assert_eq!(
            check_name(&"x".repeat(MAX_NAME + 1)),
            Err(NameError::TooLong(MAX_NAME))
        );
    }

    #[test]
    fn download_paths_are_relative_without_nul() {
        assert_eq!(check_path("sub/file"), Ok(()));
        // Refused when opened if it leaves the directory.
        assert_eq!(check_path("../x"), Ok(()));
        assert_eq!(check_path(""), Err(NameError::Empty));
        assert_eq!(check_path("/etc/passwd"), Err(NameError::Absolute));
        assert_eq!(check_path("a\0"), Err(NameError::Nul));
        assert_eq!(
            check_path(&"x".repeat(MAX_PATH + 1)),
            Err(NameError::TooLong(MAX_PATH))
        );
    }
}
