//! The file worker: a process forked for one upload or download that
//! drops to the session's user (uid, primary group, supplementary groups,
//! `no_new_privs`), as the session's program was started, and opens the
//! file beneath the session's working directory with `openat2` and
//! `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`: no `..`, absolute symbolic
//! link or `/proc` link leads out of it, race-free. The server's rights
//! never touch the file; the worker's own rights are the session user's,
//! so a file it may not read or a directory it may not write is refused
//! by the kernel.
//!
//! It talks to the server over pipes. An upload is sent as frames (a
//! little-endian `u32` length, then that many bytes; length 0 commits);
//! the worker reports ready once its temporary file (in the same
//! directory) is open, writes the frames to it and renames it to the
//! name only once the commit frame arrives, so an upload cut short (too large, the client gone) leaves nothing. A
//! download answers a header, then the file's bytes. Each outcome is a
//! [`REPORT`]-byte report: an `i64` code (0, an `errno` or one of the
//! negative codes below) and a `u64` size.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;

use crate::pty::{fork_worker, Identity};

use super::Place;

/// Bytes of a report: code and size.
const REPORT: usize = 16;
/// Largest frame of an upload, and the worker's buffer.
const FRAME: usize = 64 * 1024;
/// Report code: the file is larger than the cap.
const TOO_LARGE: i64 = -1;
/// Report code: the path names something other than a regular file.
const NOT_A_FILE: i64 = -2;
/// Report code: the upload ended without its commit frame.
const CUT_SHORT: i64 = -3;

/// Why a file could not be moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// The name is taken and overwriting was not asked for.
    #[error("a file with this name exists (add ?overwrite=true to replace it)")]
    Exists,
    /// Nothing by that path.
    #[error("no such file")]
    NotFound,
    /// The path leads outside the working directory.
    #[error("the path leads outside the working directory")]
    Outside,
    /// The session's user may not.
    #[error("the session's user may not do this: {0}")]
    Denied(String),
    /// A directory, a device, a pipe...
    #[error("not a regular file")]
    NotAFile,
    /// Larger than `limits.upload_bytes`.
    #[error("the file is larger than the limit of {0} bytes")]
    TooLarge(u64),
    /// Anything else.
    #[error("file input/output failed: {0}")]
    Io(String),
}

impl FileError {
    fn of(code: i64, cap: u64) -> FileError {
        match code {
            TOO_LARGE => FileError::TooLarge(cap),
            NOT_A_FILE => FileError::NotAFile,
            CUT_SHORT => FileError::Io("the upload was cut short".to_owned()),
            _ => {
                let errno = i32::try_from(code).unwrap_or(libc::EIO);
                let error = io::Error::from_raw_os_error(errno);
                match errno {
                    libc::EEXIST | libc::ENOTEMPTY => FileError::Exists,
                    libc::ENOENT | libc::ENOTDIR => FileError::NotFound,
                    libc::EXDEV | libc::ELOOP => FileError::Outside,
                    libc::EACCES | libc::EPERM | libc::EROFS => {
                        FileError::Denied(error.to_string())
                    }
                    libc::EISDIR => FileError::NotAFile,
                    _ => FileError::Io(error.to_string()),
                }
            }
        }
    }

    fn io(e: io::Error) -> FileError {
        FileError::Io(e.to_string())
    }
}

/// An upload under way: its bytes go to the worker as they arrive.
/// Dropping it before [`Upload::finish`] cuts it short: the worker removes
/// its temporary file and nothing is written.
pub struct Upload {
    data: pipe::Sender,
    report: pipe::Receiver,
}

impl Upload {
    /// Starts the worker of an upload to `name` (checked with
    /// [`super::check_name`]) in `place`; it fails at once (and nothing is
    /// read) when the name is taken and `overwrite` is false, or the
    /// directory cannot be written by the session's user.
    pub async fn start(place: &Place, name: &str, overwrite: bool) -> Result<Upload, FileError> {
        let name = cstring(name)?;
        let temp = cstring(&format!(
            ".{}.panecast-{}.part",
            name.to_string_lossy().chars().take(64).collect::<String>(),
            crate::random::hex128().map_err(|e| FileError::Io(e.to_string()))?
        ))?;
        let (data_read, data_write) = pipe_pair()?;
        let (report_read, report_write) = pipe_pair()?;
        let job = UploadJob {
            dir: place.dir.as_raw_fd(),
            identity: place.identity.clone(),
            name,
            temp,
            overwrite,
            data: data_read.as_raw_fd(),
            report: report_write.as_raw_fd(),
        };
        tokio::task::spawn_blocking(move || fork_worker(&|| job.run()).map(drop))
            .await
            .map_err(|e| FileError::Io(e.to_string()))?
            .map_err(FileError::io)?;
        drop((data_read, report_write));
        let data = pipe::Sender::from_owned_fd(data_write).map_err(FileError::io)?;
        let report = pipe::Receiver::from_owned_fd(report_read).map_err(FileError::io)?;
        // The worker reports once ready (or why it refuses), before any
        // byte is sent.
        let mut ready = Upload { data, report };
        ready.outcome().await?;
        Ok(ready)
    }

    /// Sends `bytes` to the worker.
    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), FileError> {
        for chunk in bytes.chunks(FRAME) {
            let len = u32::try_from(chunk.len()).unwrap_or(u32::MAX).to_le_bytes();
            let sent = async {
                self.data.write_all(&len).await?;
                self.data.write_all(chunk).await
            };
            if sent.await.is_err() {
                // The worker stopped: its report says why.
                return Err(self
                    .outcome()
                    .await
                    .err()
                    .unwrap_or_else(|| FileError::Io("the file worker stopped".to_owned())));
            }
        }
        Ok(())
    }

    /// Commits the upload: the temporary file is renamed over the name.
    /// Returns the size written.
    pub async fn finish(mut self) -> Result<u64, FileError> {
        if self.data.write_all(&0u32.to_le_bytes()).await.is_err() {
            return self.outcome().await;
        }
        self.outcome().await
    }

    async fn outcome(&mut self) -> Result<u64, FileError> {
        let mut report = [0u8; REPORT];
        self.report
            .read_exact(&mut report)
            .await
            .map_err(|_| FileError::Io("the file worker stopped".to_owned()))?;
        match code_of(&report) {
            0 => Ok(size_of(&report)),
            code => Err(FileError::of(code, 0)),
        }
    }
}

/// A download under way: the file's size, then its bytes from the worker.
pub struct Download {
    /// The file's size when it was opened; the body is that long.
    pub size: u64,
    /// The bytes.
    pub bytes: pipe::Receiver,
}

impl Download {
    /// Opens `path` (checked with [`super::check_path`]) beneath `place`
    /// as the session's user; refuses a file larger than `cap`.
    pub async fn start(place: &Place, path: &str, cap: u64) -> Result<Download, FileError> {
        let (out_read, out_write) = pipe_pair()?;
        let job = DownloadJob {
            dir: place.dir.as_raw_fd(),
            identity: place.identity.clone(),
            path: cstring(path)?,
            cap,
            out: out_write.as_raw_fd(),
        };
        tokio::task::spawn_blocking(move || fork_worker(&|| job.run()).map(drop))
            .await
            .map_err(|e| FileError::Io(e.to_string()))?
            .map_err(FileError::io)?;
        drop(out_write);
        let mut bytes = pipe::Receiver::from_owned_fd(out_read).map_err(FileError::io)?;
        let mut header = [0u8; REPORT];
        bytes
            .read_exact(&mut header)
            .await
            .map_err(|_| FileError::Io("the file worker stopped".to_owned()))?;
        match code_of(&header) {
            0 => Ok(Download {
                size: size_of(&header),
                bytes,
            }),
            code => Err(FileError::of(code, cap)),
        }
    }
}

fn code_of(report: &[u8; REPORT]) -> i64 {
    let mut code = [0u8; 8];
    code.copy_from_slice(&report[..8]);
    i64::from_le_bytes(code)
}

fn size_of(report: &[u8; REPORT]) -> u64 {
    let mut size = [0u8; 8];
    size.copy_from_slice(&report[8..]);
    u64::from_le_bytes(size)
}

fn cstring(text: &str) -> Result<CString, FileError> {
    CString::new(text).map_err(|_| FileError::Io("a name holds a NUL byte".to_owned()))
}

/// A pipe, both ends close-on-exec: (read end, write end).
fn pipe_pair() -> Result<(OwnedFd, OwnedFd), FileError> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(FileError::io(io::Error::last_os_error()));
    }
    // SAFETY: two fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

// What follows runs in the worker: system calls on memory prepared
// before the fork, no allocation.

/// An upload, as the worker runs it.
struct UploadJob {
    dir: RawFd,
    identity: Option<Identity>,
    name: CString,
    temp: CString,
    overwrite: bool,
    data: RawFd,
    report: RawFd,
}

impl UploadJob {
    fn run(&self) -> i32 {
        if keep_only([self.dir, self.data, self.report]).is_err() {
            return 1;
        }
        let (code, size) = match self.upload(0, 1) {
            Ok(size) => (0, size),
            Err(code) => (code, 0),
        };
        report(2, code, size);
        0
    }

    /// Reports ready once the temporary file is open, then copies the
    /// frames read from `data` and commits; `dir` is the directory.
    fn upload(&self, dir: RawFd, data: RawFd) -> Result<u64, i64> {
        become_user(self.identity.as_ref())?;
        if !self.overwrite && exists(dir, &self.name)? {
            return Err(i64::from(libc::EEXIST));
        }
        let file = open_beneath(
            dir,
            &self.temp,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC | libc::O_NOFOLLOW,
            0o644,
            libc::RESOLVE_NO_SYMLINKS,
        )?;
        report(2, 0, 0);
        let written = copy_frames(data, file);
        let synced = written.and_then(|size| {
            // SAFETY: fsync and close on the worker's own descriptor.
            let synced = unsafe { libc::fsync(file) } == 0;
            unsafe { libc::close(file) };
            if synced {
                Ok(size)
            } else {
                Err(errno())
            }
        });
        let renamed = synced.and_then(|size| {
            let flags = if self.overwrite {
                0
            } else {
                libc::RENAME_NOREPLACE
            };
            // SAFETY: renameat2 with NUL-terminated names in our directory.
            let done = unsafe {
                libc::syscall(
                    libc::SYS_renameat2,
                    dir,
                    self.temp.as_ptr(),
                    dir,
                    self.name.as_ptr(),
                    flags,
                )
            };
            if done == 0 {
                Ok(size)
            } else {
                Err(errno())
            }
        });
        if renamed.is_err() {
            // SAFETY: unlinkat of our temporary name in our directory.
            unsafe { libc::unlinkat(dir, self.temp.as_ptr(), 0) };
        }
        renamed
    }
}

/// Writes the frames read from `data` into `file` until the commit frame;
/// the size written.
fn copy_frames(data: RawFd, file: RawFd) -> Result<u64, i64> {
    let mut buffer = [0u8; FRAME];
    let mut size = 0u64;
    loop {
        let mut len = [0u8; 4];
        if !read_exact(data, &mut len)? {
            return Err(CUT_SHORT);
        }
        let len = u32::from_le_bytes(len) as usize;
        if len == 0 {
            return Ok(size);
        }
        if len > FRAME {
            return Err(CUT_SHORT);
        }
        if !read_exact(data, &mut buffer[..len])? {
            return Err(CUT_SHORT);
        }
        write_all(file, &buffer[..len])?;
        size += len as u64;
    }
}

/// A download, as the worker runs it.
struct DownloadJob {
    dir: RawFd,
    identity: Option<Identity>,
    path: CString,
    cap: u64,
    out: RawFd,
}

impl DownloadJob {
    fn run(&self) -> i32 {
        if keep_only([self.dir, self.out]).is_err() {
            return 1;
        }
        match self.open(0) {
            Ok((file, size)) => {
                report(1, 0, size);
                send(file, 1, size);
            }
            Err(code) => report(1, code, 0),
        }
        0
    }

    /// Opens the file beneath `dir` as the session's user: it and its size.
    fn open(&self, dir: RawFd) -> Result<(RawFd, u64), i64> {
        become_user(self.identity.as_ref())?;
        let file = open_beneath(
            dir,
            &self.path,
            libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK,
            0,
            0,
        )?;
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fstat writes one stat.
        if unsafe { libc::fstat(file, stat.as_mut_ptr()) } != 0 {
            return Err(errno());
        }
        // SAFETY: written by the fstat above.
        let stat = unsafe { stat.assume_init() };
        if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(NOT_A_FILE);
        }
        let size = u64::try_from(stat.st_size).unwrap_or(0);
        if size > self.cap {
            return Err(TOO_LARGE);
        }
        Ok((file, size))
    }
}

/// Sends the first `size` bytes of `file` to `out` (fewer if it shrank).
fn send(file: RawFd, out: RawFd, size: u64) {
    let mut buffer = [0u8; FRAME];
    let mut left = size;
    while left > 0 {
        let want = usize::try_from(left).map_or(FRAME, |left| left.min(FRAME));
        // SAFETY: read into our buffer, at most its length.
        let got = unsafe { libc::read(file, buffer.as_mut_ptr().cast(), want) };
        if got <= 0 {
            if got < 0 && errno() == i64::from(libc::EINTR) {
                continue;
            }
            return;
        }
        let got = got.unsigned_abs();
        if write_all(out, &buffer[..got]).is_err() {
            return;
        }
        left -= got as u64;
    }
}

/// Keeps only `fds` open, as 0, 1, 2... in that order: the worker holds
/// none of the server's other descriptors (its connections, the session's
/// terminals), which would otherwise stay open while it runs.
fn keep_only<const N: usize>(fds: [RawFd; N]) -> Result<(), i64> {
    let mut high = [0; N];
    for (copy, fd) in high.iter_mut().zip(fds) {
        // SAFETY: fcntl duplicates a descriptor of ours to 3 or above.
        *copy = unsafe { libc::fcntl(fd, libc::F_DUPFD, 3) };
        if *copy < 0 {
            return Err(errno());
        }
    }
    for (target, fd) in (0..).zip(high) {
        // SAFETY: dup2 onto the low numbers, from copies above them.
        if unsafe { libc::dup2(fd, target) } < 0 {
            return Err(errno());
        }
    }
    let first = libc::c_uint::try_from(N).unwrap_or(3);
    // SAFETY: closes every descriptor from N up.
    if unsafe { libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) } < 0 {
        return Err(errno());
    }
    Ok(())
}

/// Drops to `identity`, as the session's program was started: groups,
/// then gid, then uid, then `no_new_privs`. Direct system calls: the C
/// library's wrappers would signal the server's threads.
fn become_user(identity: Option<&Identity>) -> Result<(), i64> {
    let check = |result: libc::c_long| if result < 0 { Err(errno()) } else { Ok(()) };
    if let Some(identity) = identity {
        identity.assume().map_err(i64::from)?;
    }
    // SAFETY: prctl on the worker itself.
    unsafe {
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into())?;
        // It holds the server's descriptors: the session's user may not
        // look into it (a change of uid makes it so too; this says it).
        check(libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0).into())
    }
}

/// Opens `path` beneath `dir` with `openat2`: no `..`, absolute link or
/// `/proc` link out of it, plus `resolve`.
fn open_beneath(
    dir: RawFd,
    path: &CString,
    flags: libc::c_int,
    mode: libc::mode_t,
    resolve: u64,
) -> Result<RawFd, i64> {
    // SAFETY: open_how is plain integers: all zeroes is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = u64::try_from(flags).unwrap_or(0);
    how.mode = u64::from(mode);
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS | resolve;
    loop {
        // SAFETY: openat2 reads `how` (of the size given) and the path.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir,
                path.as_ptr(),
                &how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            return RawFd::try_from(fd).map_err(|_| i64::from(libc::EBADF));
        }
        // openat2 asks to retry when a rename raced the lookup.
        let error = errno();
        if error != i64::from(libc::EAGAIN) && error != i64::from(libc::EINTR) {
            return Err(error);
        }
    }
}

/// Whether `name` exists in `dir` (a symbolic link counts, dangling or not).
fn exists(dir: RawFd, name: &CString) -> Result<bool, i64> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstatat writes one stat; the name is NUL-terminated.
    let found = unsafe {
        libc::fstatat(
            dir,
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    match found {
        0 => Ok(true),
        _ if errno() == i64::from(libc::ENOENT) => Ok(false),
        _ => Err(errno()),
    }
}

/// Reads exactly `buffer.len()` bytes; false at end of file before any.
fn read_exact(fd: RawFd, buffer: &mut [u8]) -> Result<bool, i64> {
    let mut done = 0;
    while done < buffer.len() {
        // SAFETY: read into the rest of our buffer.
        let got =
            unsafe { libc::read(fd, buffer[done..].as_mut_ptr().cast(), buffer.len() - done) };
        match got {
            0 => return if done == 0 { Ok(false) } else { Err(CUT_SHORT) },
            n if n < 0 => {
                if errno() != i64::from(libc::EINTR) {
                    return Err(errno());
                }
            }
            n => done += n.unsigned_abs(),
        }
    }
    Ok(true)
}

fn write_all(fd: RawFd, mut bytes: &[u8]) -> Result<(), i64> {
    while !bytes.is_empty() {
        // SAFETY: write from our buffer, at most its length.
        let put = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if put < 0 {
            if errno() != i64::from(libc::EINTR) {
                return Err(errno());
            }
            continue;
        }
        bytes = &bytes[put.unsigned_abs()..];
    }
    Ok(())
}

fn report(fd: RawFd, code: i64, size: u64) {
    let mut bytes = [0u8; REPORT];
    bytes[..8].copy_from_slice(&code.to_le_bytes());
    bytes[8..].copy_from_slice(&size.to_le_bytes());
    let _ = write_all(fd, &bytes);
}

fn errno() -> i64 {
    i64::from(
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh directory (removed when dropped) and its place, acted in
    /// as this process's user.
    struct Dir(PathBuf);

    impl Dir {
        fn new(what: &str) -> (Dir, Place) {
            let path = std::env::temp_dir().join(format!(
                "panecast-files-{what}-{}",
                crate::random::hex128().expect("random")
            ));
            std::fs::create_dir(&path).expect("made");
            let place = Place {
                dir: super::super::place::open_dir(path.to_str().expect("utf-8")).expect("opened"),
                path: path.clone(),
                identity: None,
            };
            (Dir(path), place)
        }

        fn names(&self) -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(&self.0)
                .expect("listed")
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[tokio::test]
    async fn an_upload_appears_whole_under_its_name_only_once_committed() {
        let (dir, place) = Dir::new("commit");
        let mut upload = Upload::start(&place, "a.bin", false)
            .await
            .expect("started");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        upload.write(&bytes).await.expect("written");
        assert_eq!(dir.names().len(), 1, "only the temporary file so far");
        assert!(dir.names()[0].ends_with(".part"), "{:?}", dir.names());
        assert_eq!(upload.finish().await, Ok(200_000));
        assert_eq!(dir.names(), vec!["a.bin".to_owned()]);
        assert_eq!(std::fs::read(dir.0.join("a.bin")).expect("read"), bytes);
    }

    #[tokio::test]
    async fn an_upload_cut_short_leaves_nothing() {
        let (dir, place) = Dir::new("cut");
        let mut upload = Upload::start(&place, "a.bin", false)
            .await
            .expect("started");
        upload.write(b"half of it").await.expect("written");
        drop(upload);
        eventually(|| dir.names().is_empty()).await;
    }

    #[tokio::test]
    async fn an_existing_name_is_refused_unless_overwriting() {
        let (dir, place) = Dir::new("exists");
        std::fs::write(dir.0.join("a"), b"old").expect("written");
        let refused = Upload::start(&place, "a", false).await.err();
        assert_eq!(refused, Some(FileError::Exists));
        let mut upload = Upload::start(&place, "a", true).await.expect("started");
        upload.write(b"new").await.expect("written");
        assert_eq!(upload.finish().await, Ok(3));
        assert_eq!(std::fs::read(dir.0.join("a")).expect("read"), b"new");
        assert_eq!(dir.names(), vec!["a".to_owned()]);
    }

    #[tokio::test]
    async fn a_download_stays_beneath_the_directory() {
        let (dir, place) = Dir::new("beneath");
        std::fs::create_dir(dir.0.join("sub")).expect("made");
        std::fs::write(dir.0.join("sub/f"), b"inside").expect("written");
        std::os::unix::fs::symlink("sub/f", dir.0.join("near")).expect("linked");
        std::os::unix::fs::symlink("/etc/passwd", dir.0.join("far")).expect("linked");
        std::os::unix::fs::symlink("../..", dir.0.join("sub/up")).expect("linked");
        std::os::unix::fs::symlink("/proc/self/root/etc/passwd", dir.0.join("magic"))
            .expect("linked");
        let read = |path: &'static str| {
            let place = &place;
            async move { Download::start(place, path, 1 << 20).await.map(|d| d.size) }
        };
        assert_eq!(read("sub/f").await, Ok(6));
        assert_eq!(
            read("near").await,
            Ok(6),
            "a link that stays inside is followed"
        );
        for path in [
            "../etc/passwd",
            "sub/../../x",
            "far",
            "sub/up/etc/passwd",
            "magic",
        ] {
            assert_eq!(read(path).await, Err(FileError::Outside), "{path}");
        }
        assert_eq!(read("nothing").await, Err(FileError::NotFound));
        assert_eq!(read("sub").await, Err(FileError::NotAFile));
    }

    #[tokio::test]
    async fn a_download_over_the_cap_is_refused_and_one_under_it_is_whole() {
        let (dir, place) = Dir::new("cap");
        std::fs::write(dir.0.join("big"), vec![7u8; 100_001]).expect("written");
        assert_eq!(
            Download::start(&place, "big", 100_000).await.err(),
            Some(FileError::TooLarge(100_000))
        );
        let mut download = Download::start(&place, "big", 100_001)
            .await
            .expect("opened");
        assert_eq!(download.size, 100_001);
        let mut bytes = Vec::new();
        download.bytes.read_to_end(&mut bytes).await.expect("read");
        assert_eq!(bytes, vec![7u8; 100_001]);
    }

    #[tokio::test]
    async fn a_worker_holds_none_of_the_servers_other_descriptors() {
        let (_dir, place) = Dir::new("descriptors");
        let (read, write) = pipe_pair().expect("a pipe");
        let mut upload = Upload::start(&place, "a", false).await.expect("started");
        // The worker runs (it waits for the rest of the upload): were it
        // holding the write end, the read would never see the end.
        drop(write);
        let hung_up = tokio::task::spawn_blocking(move || {
            let mut poll = libc::pollfd {
                fd: read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll one descriptor of ours, for at most 10 s.
            let ready = unsafe { libc::poll(&mut poll, 1, 10_000) };
            ready == 1 && poll.revents & libc::POLLHUP != 0
        });
        assert_eq!(hung_up.await.ok(), Some(true), "the pipe's end is seen");
        upload.write(b"x").await.expect("written");
        assert_eq!(upload.finish().await, Ok(1));
    }

    /// Waits (up to 10 s) for `done`: the worker ends on its own time.
    async fn eventually(done: impl Fn() -> bool) {
        for _ in 0..1000 {
            if done() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("timed out");
    }
}
