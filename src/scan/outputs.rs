//! The three output buffers every scan kernel writes (score, query end, subject end,
//! one entry per subject slot) and their reading back as [`LocalScore`]s.

use crate::device::{ClDevice, KernelArgs};
use crate::error::Result;
use crate::reference::LocalScore;
use opencl3::command_queue::CommandQueue;
use opencl3::memory::{Buffer, ClMem};

/// A kernel's per-subject outputs on the device.
pub(crate) struct ScoreOutputs {
    entries: usize,
    score: Buffer<i32>,
    qend: Buffer<i32>,
    send: Buffer<i32>,
}

impl ScoreOutputs {
    pub(crate) fn new(dev: &ClDevice, entries: usize) -> Result<ScoreOutputs> {
        Ok(ScoreOutputs {
            entries,
            score: dev.buffer(entries)?,
            qend: dev.buffer(entries)?,
            send: dev.buffer(entries)?,
        })
    }

    /// Passes the three buffers as the kernel's last arguments (score, qend, send).
    pub(crate) fn args<'a, 'k>(&self, args: &'a mut KernelArgs<'k>) -> Result<&'a mut KernelArgs<'k>> {
        args.arg(&self.score.get())?.arg(&self.qend.get())?.arg(&self.send.get())
    }

    /// The scores alone (blocking read).
    pub(crate) fn read_scores(&self, dev: &ClDevice, queue: &CommandQueue) -> Result<Vec<i32>> {
        let mut score = vec![0i32; self.entries];
        dev.read(queue, &self.score, &mut score)?;
        Ok(score)
    }

    /// Every entry's score and end cell (blocking reads); the end is `None` where the
    /// score is 0, or where the kernel left it out (-1).
    pub(crate) fn read(&self, dev: &ClDevice, queue: &CommandQueue) -> Result<Vec<LocalScore>> {
        let score = self.read_scores(dev, queue)?;
        let (mut qend, mut send) = (vec![0i32; self.entries], vec![0i32; self.entries]);
        dev.read(queue, &self.qend, &mut qend)?;
        dev.read(queue, &self.send, &mut send)?;
        Ok((0..self.entries)
            .map(|k| LocalScore {
                score: score[k],
                end: (score[k] > 0 && qend[k] >= 0).then(|| (qend[k] as usize, send[k] as usize)),
            })
            .collect())
    }
}
