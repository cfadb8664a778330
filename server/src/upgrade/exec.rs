//! The exec itself: descriptors left open across it, SIGUSR2 blocked
//! until the new image handles it, and `execve` of the binary the server
//! was started from, with its original arguments and the state's path in
//! the environment. Same pid, same children.

use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The environment variable that gives the new image the state's path.
pub const STATE_ENV: &str = "PANECAST_HANDOVER";

/// Sets or clears `FD_CLOEXEC` on every descriptor of `fds`.
pub fn set_cloexec(fds: &[i32], on: bool) -> io::Result<()> {
    for &fd in fds {
        // SAFETY: F_GETFD and F_SETFD only read and set descriptor flags.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = if on {
            flags | libc::FD_CLOEXEC
        } else {
            flags & !libc::FD_CLOEXEC
        };
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, flags) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Blocks (or unblocks) SIGUSR2 in the calling thread: blocked across the
/// exec, a second upgrade signal waits for the new image's handler
/// instead of ending the process.
pub fn block_upgrade_signal(block: bool) {
    // SAFETY: sigprocmask reads one initialised set; failure (only for a bad
    // argument) leaves the mask as it was.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR2);
        let how = if block {
            libc::SIG_BLOCK
        } else {
            libc::SIG_UNBLOCK
        };
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
}

/// Replaces this process image with `binary`, run with `args` (the first
/// is its name) and this environment plus [`STATE_ENV`] = `state`. Returns
/// only on failure.
pub fn exec(binary: &Path, args: &[OsString], state: &Path) -> io::Error {
    let c = |bytes: &[u8]| {
        CString::new(bytes).map_err(|_| io::Error::other("a NUL byte in an argument"))
    };
    let prepared = (|| -> io::Result<(CString, Vec<CString>, Vec<CString>)> {
        let program = c(binary.as_os_str().as_bytes())?;
        let argv = args
            .iter()
            .map(|a| c(a.as_bytes()))
            .collect::<io::Result<Vec<_>>>()?;
        let mut env = std::env::vars_os()
            .filter(|(name, _)| name != STATE_ENV)
            .map(|(name, value)| {
                let mut pair = name.as_bytes().to_vec();
                pair.push(b'=');
                pair.extend_from_slice(value.as_bytes());
                c(&pair)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let mut pair = format!("{STATE_ENV}=").into_bytes();
        pair.extend_from_slice(state.as_os_str().as_bytes());
        env.push(c(&pair)?);
        Ok((program, argv, env))
    })();
    let (program, argv, env) = match prepared {
        Ok(prepared) => prepared,
        Err(e) => return e,
    };
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    // SAFETY: every pointer is to a NUL-terminated string that lives until
    // the call returns, and both arrays end with a null pointer.
    unsafe { libc::execve(program.as_ptr(), argv_ptrs.as_ptr(), env_ptrs.as_ptr()) };
    io::Error::last_os_error()
}
