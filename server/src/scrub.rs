//! Wipes a secret from this process's original command line and
//! environment, the memory `/proc/PID/cmdline` and `/proc/PID/environ`
//! show. Being non-dumpable closes those files to processes of the same
//! user, but not to root's: a session's program running as root could
//! still read them, so the bytes themselves are overwritten once the
//! secret has been read.
//!
//! On Linux the kernel lays the argument strings and then the environment
//! strings out contiguously at the top of the initial stack; `environ[0]`
//! points at the first environment string, and the arguments end just
//! before it. The region is checked against `/proc/self/cmdline` before
//! anything is written.

use std::ffi::CStr;

extern "C" {
    static mut environ: *mut *mut libc::c_char;
}

/// Overwrites every occurrence of `secret` in the original arguments and
/// environment with `x`; returns how many were wiped.
pub fn scrub(secret: &str) -> usize {
    let secret = secret.as_bytes();
    if secret.is_empty() {
        return 0;
    }
    let Ok(cmdline) = std::fs::read("/proc/self/cmdline") else {
        return 0;
    };
    // SAFETY: `environ` is the C runtime's environment array, read before
    // any thread could change it (this runs at start-up, single-threaded);
    // the strings it points to are NUL-terminated and writable.
    unsafe {
        let env = environ;
        if env.is_null() || (*env).is_null() {
            return 0;
        }
        let env_start = *env as *mut u8;
        let mut last = env;
        while !(*last.add(1)).is_null() {
            last = last.add(1);
        }
        let last_len = CStr::from_ptr(*last).to_bytes_with_nul().len();
        let env_end = (*last as *mut u8).add(last_len);
        let args_start = env_start.wrapping_sub(cmdline.len());
        if std::slice::from_raw_parts(args_start, cmdline.len()) != cmdline.as_slice() {
            // Not the layout expected: wipe only the environment strings.
            return wipe(env_start, env_end.offset_from(env_start) as usize, secret);
        }
        wipe(args_start, env_end.offset_from(args_start) as usize, secret)
    }
}

/// Overwrites each occurrence of `secret` in `len` bytes at `start`.
///
/// # Safety
/// `start .. start + len` must be valid, writable memory.
unsafe fn wipe(start: *mut u8, len: usize, secret: &[u8]) -> usize {
    let region = std::slice::from_raw_parts_mut(start, len);
    let mut wiped = 0;
    let mut i = 0;
    while i + secret.len() <= region.len() {
        if &region[i..i + secret.len()] == secret {
            region[i..i + secret.len()].fill(b'x');
            wiped += 1;
            i += secret.len();
        } else {
            i += 1;
        }
    }
    wiped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipes_every_occurrence() {
        let mut bytes = *b"a=SECRET\0b=xSECRETy\0SECRE\0";
        // SAFETY: the array is writable and its length is given.
        let n = unsafe { wipe(bytes.as_mut_ptr(), bytes.len(), b"SECRET") };
        assert_eq!(n, 2);
        assert_eq!(&bytes, b"a=xxxxxx\0b=xxxxxxxy\0SECRE\0");
    }
}
