//! Times two commands as whole processes, in turn (A B A B ...), from the
//! kernel's own accounting of each finished child: `wait4`'s resource usage
//! (user + system time, to the microsecond) and the wall time around it.
//! Each pair's ratio is taken before the medians, so a comparison holds
//! when the machine's speed drifts between pairs.

use std::process::{Command, Stdio};
use std::time::Instant;

/// One finished run: cpu (user + system) and wall seconds.
#[derive(Clone, Copy)]
struct Run {
    cpu: f64,
    wall: f64,
}

/// The medians of paired runs of A and B.
pub struct Paired {
    /// A's median cpu seconds.
    pub a_cpu: f64,
    /// B's median cpu seconds.
    pub b_cpu: f64,
    /// The median of the pairs' A/B cpu ratios.
    pub cpu_ratio: f64,
    /// The median of the pairs' A/B wall ratios.
    pub wall_ratio: f64,
}

/// Runs `a` and `b` (each a program and its arguments) once each as a
/// warm-up, then `pairs` times in turn; fails when either cannot start or
/// exits unsuccessfully.
pub fn time_pairs(pairs: usize, a: &[String], b: &[String]) -> Result<Paired, String> {
    run(a)?;
    run(b)?;
    let mut runs = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        runs.push((run(a)?, run(b)?));
    }
    Ok(Paired {
        a_cpu: median(runs.iter().map(|(a, _)| a.cpu)),
        b_cpu: median(runs.iter().map(|(_, b)| b.cpu)),
        cpu_ratio: median(runs.iter().map(|(a, b)| a.cpu / b.cpu)),
        wall_ratio: median(runs.iter().map(|(a, b)| a.wall / b.wall)),
    })
}

/// Runs `argv` with its output discarded and reaps it with `wait4`.
fn run(argv: &[String]) -> Result<Run, String> {
    let (program, args) = argv.split_first().ok_or("an empty command")?;
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is a plain C struct for which all zeroes is a valid
    // value; wait4 only writes through the two pointers, which outlive the
    // call. It reaps the child, so `child` is dropped without a wait.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    if reaped != pid {
        return Err(format!("{program}: {}", std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("{program} failed (wait status {status})"));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Run {
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        wall,
    })
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}
