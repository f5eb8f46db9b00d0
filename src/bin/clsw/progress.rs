//! Progress on standard error, the same in every job command (`--progress`): a bar on
//! a terminal, one line per step otherwise; nothing with `--quiet`.

use crate::args::ReportArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The most steps a job is cut into when its progress is shown: psse and sw3 make a
/// library call of each (the results the same as one call's), align a batch.
pub const STEPS: usize = 100;

/// A job's progress: the bar, and whether each step is also a line of its own.
pub struct Progress {
    bar: ProgressBar,
    lines: bool,
}

impl Progress {
    /// Progress over `total` units of work (cells), or over phases when there is no
    /// total (a spinner), the bar showing `counter` first: a bar on a terminal with
    /// `--progress` (or `on_terminal`: scan draws it there anyway), a line per step with
    /// `--progress` off a terminal.
    pub fn new(report: &ReportArgs, total: Option<u64>, counter: String, on_terminal: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal && !report.quiet && (report.progress || on_terminal) {
            let (bar, template) = match total {
                Some(n) => (
                    ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                    "{spinner} [{elapsed_precise}] {wide_bar} {percent:>3}% {msg} ETA {eta}",
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
                    "{spinner} [{elapsed_precise}] {msg}",
                ),
            };
            bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
            bar.set_message(counter);
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress { bar, lines: report.progress && !report.quiet && !terminal }
    }

    /// Whether anything is shown: a job is cut into steps only then.
    pub fn shown(&self) -> bool {
        self.lines || !self.bar.is_hidden()
    }

    /// `units` more done: the bar shows `counter` ("3/10 pairs"); off a terminal, `line`
    /// is printed (`clsw: LINE`).
    pub fn advance(&self, units: u64, counter: String, line: impl FnOnce() -> String) {
        self.bar.inc(units);
        self.bar.set_message(counter);
        if self.lines {
            eprintln!("clsw: {}", line());
        }
    }

    /// A phase begins (a spinner's progress): the bar shows `text`; off a terminal it is
    /// printed (`clsw: TEXT`).
    pub fn phase(&self, text: String) {
        if self.lines {
            eprintln!("clsw: {text}");
        }
        self.bar.set_message(text);
    }

    /// Seconds since the progress began.
    pub fn seconds(&self) -> f64 {
        self.bar.elapsed().as_secs_f64()
    }
}

/// The bar is cleared when the job ends, or fails: the summary or the error follows
/// on a clean line.
impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
