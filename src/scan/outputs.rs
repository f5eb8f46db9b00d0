//! The three output buffers every scan kernel writes (score, query end, subject end,
//! one entry per subject slot) and their reading back as [`LocalScore`]s, waiting or
//! in flight ([`OutputsInFlight`]).

use crate::device::{ClDevice, KernelArgs, cl};
use crate::error::Result;
use crate::reference::LocalScore;
use opencl3::command_queue::CommandQueue;
use opencl3::event::Event;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::CL_NON_BLOCKING;

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

    /// Enqueues on `queue` the reads of the scores, and of the end cells when `ends`,
    /// once the commands `after` have finished (the launches that write them, on any
    /// queue of the device; none for launches on `queue` itself, which runs in order),
    /// and returns without waiting.
    pub(crate) fn read_after(
        &self,
        queue: &CommandQueue,
        after: &[opencl3::types::cl_event],
        ends: bool,
    ) -> Result<OutputsInFlight> {
        let mut out =
            OutputsInFlight { outputs: RawOutputs { score: vec![0; self.entries], ends: None }, reads: vec![] };
        if ends {
            out.outputs.ends = Some((vec![0; self.entries], vec![0; self.entries]));
        }
        let RawOutputs { score, ends } = &mut out.outputs;
        let mut targets = vec![(&self.score, score)];
        if let Some((qend, send)) = ends {
            targets.push((&self.qend, qend));
            targets.push((&self.send, send));
        }
        for (buffer, target) in targets {
            // SAFETY: the read writes into the vector's heap buffer, which
            // OutputsInFlight owns and neither hands out nor frees before the read's
            // event has completed (it is pushed before any other read is enqueued).
            let read = unsafe { queue.enqueue_read_buffer(buffer, CL_NON_BLOCKING, 0, target, after) };
            out.reads.push(cl("clEnqueueReadBuffer", read)?);
        }
        cl("clFlush", queue.flush())?;
        Ok(out)
    }

    /// Every entry's score and end cell (blocking reads), as [`RawOutputs::get`] gives them.
    pub(crate) fn read(&self, dev: &ClDevice, queue: &CommandQueue) -> Result<Vec<LocalScore>> {
        let read = self.read_raw(dev, queue, true)?;
        Ok((0..self.entries).map(|k| read.get(k)).collect())
    }

    /// The buffers as they are (blocking reads): the scores, and the end cells when
    /// `ends` (else they are not read, and [`RawOutputs::get`] gives no end).
    pub(crate) fn read_raw(&self, dev: &ClDevice, queue: &CommandQueue, ends: bool) -> Result<RawOutputs> {
        let score = self.read_scores(dev, queue)?;
        let ends = if ends {
            let (mut qend, mut send) = (vec![0i32; self.entries], vec![0i32; self.entries]);
            dev.read(queue, &self.qend, &mut qend)?;
            dev.read(queue, &self.send, &mut send)?;
            Some((qend, send))
        } else {
            None
        };
        Ok(RawOutputs { score, ends })
    }
}

/// Outputs on their way from the device ([`ScoreOutputs::read_after`]). The vectors
/// are the reads' targets, so they are handed out only once the reads have completed,
/// and dropping this waits for the reads: the device never writes into freed memory.
pub(crate) struct OutputsInFlight {
    outputs: RawOutputs,
    reads: Vec<Event>,
}

impl OutputsInFlight {
    /// Waits for the reads and returns the outputs.
    pub(crate) fn wait(mut self) -> Result<RawOutputs> {
        // Each read leaves the list once it has completed: after a failure, Drop waits
        // for the rest.
        while let Some(read) = self.reads.first() {
            cl("clWaitForEvents", read.wait())?;
            self.reads.remove(0);
        }
        Ok(std::mem::replace(&mut self.outputs, RawOutputs { score: vec![], ends: None }))
    }
}

impl Drop for OutputsInFlight {
    fn drop(&mut self) {
        for read in self.reads.drain(..) {
            // A failed wait means the read ended in error: nothing is written any more.
            let _ = read.wait();
        }
    }
}

/// A kernel's outputs read back, entry by entry as the kernel wrote them.
pub(crate) struct RawOutputs {
    score: Vec<i32>,
    ends: Option<(Vec<i32>, Vec<i32>)>,
}

impl RawOutputs {
    /// The scores alone, entry by entry.
    pub(crate) fn into_scores(self) -> Vec<i32> {
        self.score
    }

    /// Entry `k`'s score and end cell: no end where the kernel left it out (-1: a local
    /// score of 0, a glocal alignment of no subject residue, a score-only kernel), where
    /// the pair saturated, or where the ends were not read.
    pub(crate) fn get(&self, k: usize) -> LocalScore {
        let score = self.score[k];
        let end = match &self.ends {
            Some((qend, send)) if score != super::SATURATED && qend[k] >= 0 && send[k] >= 0 => {
                Some((qend[k] as usize, send[k] as usize))
            }
            _ => None,
        };
        LocalScore { score, end }
    }
}
