//! Host side of `cl/scan_team.cl`, the default kernel on GPUs: two subjects per team of
//! work-items, each work-item holding a slice of the query's rows in registers, H and F
//! passed down the team (warp shuffles on NVIDIA). Here: its source, and the rules that
//! shape its launches (team size, rows per work-item, local memory); the launches
//! themselves are the [`Scanner`](super::scanner::Scanner)'s, which `inter` shares.

use super::scanner::{ScanKernel, Tuning};
use crate::device::{ClDevice, DeviceInfo, DeviceKind, KernelSource, cl};
use crate::error::{Error, Result};
use crate::scoring::Mode;
use opencl3::kernel::Kernel;

pub const SOURCE: KernelSource = KernelSource { name: "scan_team.cl", text: include_str!("../../cl/scan_team.cl") };

/// `scan_team`: each even number of rows per work-item from 8 to 26 in teams of 8:
/// padded cells per second (GCUPS) and whether its build takes the slotted local
/// profile (cl/scan_team.cl: TEAM_SLOTTED) or the packed one, whichever ran faster
/// (the packed one on a tie: half the local memory). Measured score only on an H200
/// and the MFO database (BENCHMARKS.md, "Rows per work-item"): each shape's cells over
/// its time on the queries of 1,500 residues and more, counting the padded rows. What
/// a pass of few rows pays for its steps' bookkeeping. The slotted profile was 1-14%
/// faster at 10 to 22 rows and at 26 (4,652 packed); at 24, 2% slower. 28 rows and
/// more do not launch (CL_OUT_OF_RESOURCES). 26 rows walk a long group's step the
/// slowest ([`long_step_seconds`]), which [`Tuning::rows_for_launch`] weighs.
const TEAM_ROWS_GCUPS: [(usize, u64, bool); 10] = [
    (8, 3458, false),
    (10, 3913, true),
    (12, 4144, true),
    (14, 4257, true),
    (16, 4396, true),
    (18, 4488, true),
    (20, 4624, true),
    (22, 4600, true),
    (24, 4618, false),
    (26, 4759, true),
];

/// A long group's column step while the rest of its launch runs beside it, each team
/// of the stages on a pass ([`long_step_seconds`]): per row a work-item holds, and at
/// least a floor. Score only, H200, MFO, two rounds of 35,213 columns (BENCHMARKS.md,
/// "Rows per work-item"): 1,000 residues in five passes of 8 x 26 rows took 43.7 ms
/// (0.62 us a step, 24 ns a row); 850 in five of 8 x 22 36.4 ms, in six of 8 x 18
/// 36.1 and in eight of 8 x 14 35.7 (0.507-0.517 us: the floor). Where the walk is at
/// the floor, shapes of as many rounds tie and the first of the table, the fewest
/// rows, is taken (14 at 850 residues). (A query of one pass walks a long group as
/// one team, without the stages' barriers: the scanner's LONG_STEP_SECONDS.)
const LONG_ROW_STEP_SECONDS: f64 = 23.5e-9;
/// The floor of [`long_step_seconds`].
const LONG_STEP_FLOOR_SECONDS: f64 = 0.51e-6;

/// The seconds of a long group's column step with `rows` rows a work-item.
pub fn long_step_seconds(rows: usize) -> f64 {
    (rows as f64 * LONG_ROW_STEP_SECONDS).max(LONG_STEP_FLOOR_SECONDS)
}

/// The same in the global mode (queries of 4,061 and 5,478 residues), for both
/// non-local modes (BENCHMARKS.md, "Global and glocal modes": glocal ran 1-6% faster
/// in the same order). The last-row fold's registers make 24 rows slower than 20 and
/// 22 here; the slotted profile ran faster but at 16 rows (1% slower).
const TEAM_ROWS_GCUPS_MODES: [(usize, u64, bool); 9] = [
    (8, 3409, true),
    (10, 3714, true),
    (12, 3912, true),
    (14, 3968, true),
    (16, 4204, false),
    (18, 4219, true),
    (20, 4371, true),
    (22, 4410, true),
    (24, 4163, true),
];

/// `scan_team` built for teams of `team` and `rows` rows per work-item in `mode`:
/// whether it takes the slotted local profile. Teams of 8 or more (their slotted
/// profile holds at most two copies of each work-item's rows, for a smaller team 16 /
/// team), where the tables above say so; shapes outside them are slotted.
pub fn slotted(mode: Mode, team: usize, rows: usize) -> bool {
    let table = if mode == Mode::Local { &TEAM_ROWS_GCUPS[..] } else { &TEAM_ROWS_GCUPS_MODES[..] };
    team >= 8 && table.iter().find(|(r, _, _)| *r == rows).is_none_or(|&(_, _, slotted)| slotted)
}

impl Tuning {
    /// `scan_team`: true when a subject of `n` residues would set the length of a
    /// launch over `residues` residues (its subjects times the queries a scanner is
    /// made for) in teams of `team`: `residues x team < long_cover x n`. A team walks
    /// its pair pass after pass, and a launch lasts at least as long as its slowest
    /// team, however little else it holds. Long subjects get a
    /// long group of their own each pair, which [`stages`] teams walk at once, each on
    /// a pass of its own, in the same launches as the others, whose groups they start
    /// before; `long_cover` is measured (BENCHMARKS.md).
    pub fn is_long(&self, n: usize, residues: u64) -> bool {
        self.long_cover > 0 && residues.saturating_mul(self.team as u64) < self.long_cover.saturating_mul(n as u64)
    }

    /// `scan_team`: refuses teams the kernel cannot run: `team` and `min_team` are
    /// powers of two up to 32, `rows` even.
    pub fn check_team(&self) -> Result<()> {
        let power = |t: usize| t.is_power_of_two() && t <= 32;
        if power(self.team) && power(self.min_team) && self.rows.is_multiple_of(2) {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "team tuning: team {} and min_team {} must be powers of two up to 32, rows {} even",
            self.team, self.min_team, self.rows
        )))
    }

    /// `scan_team`: the team size for a subject of `n` residues: about n / 12, so the
    /// TEAM - 1 columns of fill and drain stay under a tenth; at least `self.min_team`,
    /// at most `self.team`.
    pub fn team_for(&self, n: usize) -> usize {
        let mut team = self.min_team.clamp(1, self.team);
        while team * 2 <= self.team && team * 2 * 12 <= n {
            team *= 2;
        }
        team
    }

    /// `scan_team`: the teams of `team` work-items a work-group holds and its
    /// work-items: `team_group`'s worth, at least the [`stages`] that walk a long group
    /// at once (fewer would leave some of its passes unwalked), at most what the
    /// device's work-groups hold (`max_work_group`).
    pub fn team_work_group(&self, team: usize, max_work_group: usize) -> Result<(usize, usize)> {
        let team = team.max(1);
        let teams = (self.team_group / team).max(stages(team)).min(max_work_group / team);
        if teams < stages(team) {
            return Err(Error::InvalidArgument(format!(
                "the team kernel needs work-groups of {} work-items (teams of {team}); the device allows {max_work_group}",
                stages(team) * team
            )));
        }
        Ok((teams, teams * team))
    }

    /// `scan_team`: rows per work-item for queries of `lengths` rows scanned together
    /// (one query, or a launch's slots) in `mode` and teams of `team` (`self.rows` when
    /// set): the least time over them all, padded rows at the speed the mode's table
    /// (TEAM_ROWS_GCUPS, TEAM_ROWS_GCUPS_MODES) gives each shape, with a pass's profile
    /// within `max_span` rows (local memory).
    pub fn rows_for(&self, lengths: &[usize], team: usize, max_span: usize, mode: Mode) -> usize {
        self.rows_for_launch(lengths, team, max_span, mode, 1.0, |_| 0.0)
    }

    /// [`rows_for`](Self::rows_for) of a launch over `residues` residues whose long
    /// groups walk for `walk(rows)` seconds: a launch lasts at least its long groups'
    /// walk, whose steps grow with the rows they hold ([`long_step_seconds`]). At 1,000
    /// residues five passes of 8 x 26 rows walk two rounds that outlast their cells
    /// (43.7 ms against the 38.2 of seven passes of 8 x 18).
    pub fn rows_for_launch(
        &self,
        lengths: &[usize],
        team: usize,
        max_span: usize,
        mode: Mode,
        residues: f64,
        walk: impl Fn(usize) -> f64,
    ) -> usize {
        if self.rows > 0 {
            return self.rows;
        }
        let time = |&(rows, gcups, _): &(usize, u64, bool)| -> f64 {
            let padded: usize = lengths.iter().map(|&m| m.max(1).div_ceil(team * rows) * team * rows).sum();
            (padded as f64 * residues / (gcups as f64 * 1e9)).max(walk(rows))
        };
        let table = if mode == Mode::Local { &TEAM_ROWS_GCUPS[..] } else { &TEAM_ROWS_GCUPS_MODES[..] };
        table
            .iter()
            .filter(|(r, _, _)| r * team <= max_span.max(8 * team))
            .min_by(|a, b| time(a).total_cmp(&time(b)))
            .map_or(8, |&(rows, _, _)| rows)
    }
}

/// The most work-items a `scan_team` work-group takes on the device of `info`: all it
/// holds, and on CPU devices the 32 that a long group's [`stages`] need. A CPU device
/// without sub-group shuffles keeps each work-item's rows in memory across the step's
/// barrier (PoCL), and 128 work-items' (`Tuning::team_group`'s default) left its cache:
/// 4.41 s against 0.59 s for 32 (PoCL 3.1 on 2 cores, a query of 250 residues against
/// tests/data/uniprot300.fasta).
pub fn max_work_group(info: &DeviceInfo) -> usize {
    match info.kind {
        DeviceKind::Cpu => info.max_work_group_size.min(stages(1)),
        _ => info.max_work_group_size,
    }
}

/// `scan_team`: the teams that walk a long group's pair at once, each on a pass of its
/// own (the kernel's STAGES: one warp of 32 work-items).
pub fn stages(team: usize) -> usize {
    if team < 32 { 32 / team.max(1) } else { 1 }
}

/// `scan_team` or `scan_team_pairs` (`kind`, its entry point `name`) built for `tuning`
/// (its team and rows), `ends` and `mode`, for launches of `work_group` work-items:
/// - Where `dev` builds sub-group shuffles ([`ClDevice::subgroup_shuffles`]), that
///   build only when its sub-groups hold whole teams for this work-group
///   (`CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE` a multiple of the team that divides the
///   work-group: a compiler may choose the size per kernel, 8 to 64 on GPUs), else the
///   twin without them.
/// - Refused where the built kernel allows fewer work-items a group on `dev`
///   (`CL_KERNEL_WORK_GROUP_SIZE`, which a build holding many registers a work-item can
///   bring below the device's limit the work-group was chosen within), naming the shape
///   and what to change, where the launch would fail with the driver's bare
///   CL_INVALID_WORK_GROUP_SIZE.
pub(crate) fn kernel(
    dev: &ClDevice,
    kind: ScanKernel,
    name: &str,
    tuning: &Tuning,
    ends: bool,
    mode: Mode,
    work_group: usize,
) -> Result<Kernel> {
    let build = |twin: bool| {
        let program = kind.program_of(dev, tuning, ends, mode, twin)?;
        cl("clCreateKernel", Kernel::create(&program, name))
    };
    let mut kernel = build(false)?;
    if dev.subgroup_shuffles() && tuning.team > 1 && !teams_in_subgroups(&kernel, dev, work_group, tuning.team) {
        kernel = build(true)?;
    }
    let kernel_max = cl("clGetKernelWorkGroupInfo", kernel.get_work_group_size(dev.info.id))?;
    fits_kernel(kernel_max, work_group, tuning)?;
    Ok(kernel)
}

/// Whether `kernel`'s sub-groups in work-groups of `work_group` are all full and hold
/// whole teams of `team`; not when the runtime cannot say. The query is core from
/// OpenCL 2.1 (clGetKernelSubGroupInfo) and cl_khr_subgroups' on OpenCL 2.0
/// (clGetKernelSubGroupInfoKHR, the same parameter).
fn teams_in_subgroups(kernel: &Kernel, dev: &ClDevice, work_group: usize, team: usize) -> bool {
    use opencl3::kernel::{CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, get_kernel_sub_group_info};
    let param = CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE;
    let core = get_kernel_sub_group_info(
        kernel.get(),
        dev.info.id,
        param,
        std::mem::size_of::<usize>(),
        (&raw const work_group).cast(),
    )
    .map(usize::from);
    let size =
        core.or_else(|_| kernel.get_kernel_sub_group_info_khr(dev.info.id, param, &[work_group]).map_err(|e| e.0));
    size.is_ok_and(|sg| holds_teams(sg, work_group, team))
}

/// Whether sub-groups of `sg` work-items (at most), in work-groups of `work_group`, are
/// all full and each a whole number of teams of `team`.
fn holds_teams(sg: usize, work_group: usize, team: usize) -> bool {
    sg > 0 && sg.is_multiple_of(team) && work_group.is_multiple_of(sg)
}

/// [`kernel`]'s work-group check, given the kernel's limit.
fn fits_kernel(kernel_max: usize, work_group: usize, tuning: &Tuning) -> Result<()> {
    if work_group <= kernel_max {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "the team kernel with teams of {} and {} rows a work-item runs at most {kernel_max} work-items a group on this \
         device, not {work_group}: tune it with fewer rows or smaller work-groups (`Tuning::rows`, `team_group`; \
         `clsw bench scan --rows`, `--group`), or use the inter variant",
        tuning.team, tuning.rows
    )))
}

/// `scan_team` (`kind` Team) or `scan_team_pairs` (TeamPairs): the kernel's local
/// scratch on `dev` for `work_group` work-items of the build with end cells or not
/// (`ends`) in `mode`: with the vendor's code one word a work-item for scan_team_pairs
/// and scan_team's score-only local build (its best), 6 for scan_team's others (a
/// team's end cells, or the last row's in the other modes: `ENDS || MODE` in
/// cl/scan_team.cl); portable, 8 for all (the hand-off's H and F of two steps, two
/// lanes each).
pub(crate) fn scratch_bytes(dev: &ClDevice, kind: ScanKernel, work_group: usize, ends: bool, mode: Mode) -> usize {
    let words = match (dev.vendor_code(), kind) {
        (false, _) => 8,
        (true, ScanKernel::TeamPairs) => 1,
        (true, _) if !ends && mode == Mode::Local => 1,
        (true, _) => 6,
    };
    work_group * words * 4
}

/// `scan_team`: the bytes of local memory its profiles take for `letters` letters, teams
/// of `team` and passes of `rows` rows a work-item, `profiles` packed ones (one per
/// stage of a launch with long groups; cl/scan_team.cl: STRIDE), or the slotted one
/// (SLOT_STRIDE), whichever is larger.
pub(crate) fn profile_bytes(letters: usize, team: usize, rows: usize, profiles: usize) -> usize {
    let packed = letters * (team * rows / 2 + team + 2) * 4 * profiles.max(1);
    let chunks = ((rows / 2 + 1) & !1) / 2;
    let slotted = letters * chunks * (team / 16).max(1) * 32 * 4;
    packed.max(slotted)
}

/// `scan_team` (`kind` Team) or `scan_team_pairs` (TeamPairs): the most query rows a
/// pass may hold on `dev` in work-groups of `work_group` work-items, teams of `team`
/// and profiles of `letters` letters, `profiles` of them (a launch with long groups
/// holds one per stage): its profile ([`profile_bytes`]; scan_team_pairs: letters x
/// (span + 3 team + 4) words, two queries' scores per row) and the scratch
/// ([`scratch_bytes`] of the build: `ends`, `mode`) must fit local memory. The
/// score-only local build's smaller scratch leaves room for 26 rows a work-item beside
/// four long-group profiles of 25 letters (45,600 bytes of 48 KB).
pub(crate) fn max_span(
    dev: &ClDevice,
    kind: ScanKernel,
    work_group: usize,
    letters: usize,
    team: usize,
    profiles: usize,
    (ends, mode): (bool, Mode),
) -> usize {
    let scratch = scratch_bytes(dev, kind, work_group, ends, mode);
    let free = (dev.info.local_mem_bytes as usize).saturating_sub(scratch + 1024);
    if kind == ScanKernel::TeamPairs {
        (free / (letters * 4)).saturating_sub(3 * team + 4)
    } else {
        // The most rows a work-item whose profiles fit; rows come in pairs.
        let team = team.max(1);
        let mut rows = 2;
        while profile_bytes(letters, team, rows + 2, profiles) <= free {
            rows += 2;
        }
        team * rows
    }
}

#[cfg(test)]
mod tests {
    use super::Tuning;
    use crate::scoring::Mode;

    #[test]
    fn subjects_long_beside_their_launch_are_long() {
        let t = Tuning::default();
        // 170 M residues (a Swiss-Prot-sized database): subjects from 10,400 residues on
        // are long, uniprot20k's longest (8,081) is not.
        assert!(t.is_long(35_213, 170_000_000) && t.is_long(10_500, 170_000_000));
        assert!(!t.is_long(8_081, 170_000_000));
        // The same subject beside a smaller database, or more queries a launch.
        assert!(t.is_long(8_081, 9_000_000));
        assert!(!t.is_long(35_213, 170_000_000 * 32));
        // Off: nothing is long.
        assert!(!Tuning { long_cover: 0, ..t }.is_long(usize::MAX, 1));
        for bad in
            [Tuning { team: 0, ..t }, Tuning { team: 12, ..t }, Tuning { min_team: 64, ..t }, Tuning { rows: 7, ..t }]
        {
            assert!(bad.check_team().is_err(), "{bad:?}");
        }
        assert!(t.check_team().is_ok());
    }

    #[test]
    fn work_groups_hold_a_long_groups_stages_within_the_devices_limit() {
        let t = Tuning::default();
        assert_eq!(t.team_work_group(8, 1024).unwrap(), (16, 128));
        // Fewer teams asked for than a long group's four stages: the stages.
        assert_eq!(Tuning { team_group: 8, ..t }.team_work_group(8, 1024).unwrap(), (4, 32));
        assert_eq!(Tuning { team_group: 8, ..t }.team_work_group(32, 1024).unwrap(), (1, 32));
        // A device of 64 work-items a group; one of 16 cannot walk a long group.
        assert_eq!(t.team_work_group(8, 64).unwrap(), (8, 64));
        let err = t.team_work_group(8, 16).unwrap_err().to_string();
        assert!(err.contains("work-groups of 32 work-items (teams of 8); the device allows 16"), "{err}");
    }

    #[test]
    fn launches_past_the_built_kernels_work_group_limit_are_refused_by_name() {
        let t = Tuning { rows: 24, ..Tuning::default() };
        assert!(super::fits_kernel(128, 128, &t).is_ok());
        let err = super::fits_kernel(96, 128, &t).unwrap_err().to_string();
        assert!(err.contains("teams of 8 and 24 rows a work-item runs at most 96 work-items a group"), "{err}");
        assert!(err.contains("not 128") && err.contains("--rows") && err.contains("--group"), "{err}");
    }

    /// The sub-group build only where every sub-group is full and holds whole teams;
    /// else the twin (cl/clsw_common.h: CLSW_SUBGROUPS).
    #[test]
    fn sub_group_shuffles_only_where_sub_groups_hold_whole_teams() {
        // PoCL 5's CPU device: one sub-group a work-group; AMD's wavefronts of 64 or 32.
        assert!(super::holds_teams(128, 128, 8) && super::holds_teams(64, 128, 32) && super::holds_teams(32, 128, 8));
        // Intel's SIMD8 with teams of 16; a last sub-group cut short; a runtime that
        // gave no size.
        assert!(!super::holds_teams(8, 128, 16) && !super::holds_teams(64, 96, 8) && !super::holds_teams(0, 128, 8));
        assert!(!super::holds_teams(24, 96, 16));
    }

    #[test]
    fn rows_per_work_item_weigh_padding_by_each_shapes_speed() {
        let t = Tuning::default();
        // 192 rows are one pass of 8 x 24, the fastest shape: no padding.
        assert_eq!(t.rows_for(&[192], 8, 4096, Mode::Local), 24);
        // 176 rows: one pass of 8 x 22 beats one of 8 x 24 (192 rows) at their speeds.
        assert_eq!(t.rows_for(&[176], 8, 4096, Mode::Local), 22);
        // 208 rows: one pass of 8 x 26. 220 rows: two passes of 8 x 14 (224 rows) beat
        // two of 8 x 16 (256) and three of 8 x 10 (240) at their speeds.
        assert_eq!(t.rows_for(&[208], 8, 4096, Mode::Local), 26);
        assert_eq!(t.rows_for(&[220], 8, 4096, Mode::Local), 14);
        // 1,000 rows: five passes of 26 (1,040 rows) beat seven of 18 (1,008) and six
        // of 24 (1,152) at their speeds.
        assert_eq!(t.rows_for(&[1000], 8, 4096, Mode::Local), 26);
        // Local memory caps a pass: 160 rows for teams of 8 allow 20 rows at most.
        assert!(t.rows_for(&[176, 3000], 8, 160, Mode::Local) <= 20);
        // The other modes' table: 192 rows take one pass of 8 x 24 over two of 8 x 12;
        // 4,096 rows take 26 passes of 8 x 20 (4,160 rows) over 32 of 8 x 16 (no
        // padding), 20 being the faster shape.
        assert_eq!(t.rows_for(&[192], 8, 4096, Mode::Global), 24);
        assert_eq!(t.rows_for(&[4096], 8, 4096, Mode::Glocal), 20);
        // Set rows are kept.
        assert_eq!(Tuning { rows: 12, ..t }.rows_for(&[176], 8, 4096, Mode::Global), 12);
    }

    #[test]
    fn rows_per_work_item_weigh_the_long_groups_walk() {
        let t = Tuning::default();
        // MFO's launches: 170 M residues, long groups of 35,213 columns walked in rounds
        // of four passes (as the scanner counts them: none for a query of one pass).
        let walk = |m: usize| {
            move |rows: usize| {
                let passes = m.div_ceil(8 * rows);
                let rounds = if passes > 1 { passes.div_ceil(super::stages(8)) } else { 0 };
                rounds as f64 * 35_213.0 * super::long_step_seconds(rows)
            }
        };
        let rows = |m: usize| t.rows_for_launch(&[m], 8, 4096, Mode::Local, 170e6, walk(m));
        // 1,000 residues: five passes of 26 rows walk two rounds that outlast their
        // cells; seven passes of 18 walk two rounds of shorter steps, within theirs.
        assert_eq!(rows(1000), 18);
        // 4,548 residues: 22 passes of 26 rows (4,576), six rounds, still bound by cells.
        assert_eq!(rows(4548), 26);
        // Without long groups the cells alone choose.
        assert_eq!(t.rows_for_launch(&[850], 8, 4096, Mode::Local, 170e6, |_| 0.0), 22);
    }

    #[test]
    fn each_shape_builds_the_local_profile_that_ran_faster() {
        use super::slotted;
        assert!(slotted(Mode::Local, 8, 22) && !slotted(Mode::Local, 8, 8) && !slotted(Mode::Local, 8, 24));
        assert!(slotted(Mode::Global, 8, 24) && slotted(Mode::Glocal, 8, 24) && !slotted(Mode::Glocal, 8, 16));
        // Shapes outside the tables are slotted, in teams of 8 or more.
        assert!(slotted(Mode::Local, 8, 26) && slotted(Mode::Global, 32, 2) && slotted(Mode::Local, 16, 14));
        assert!(!slotted(Mode::Local, 4, 22) && !slotted(Mode::Local, 1, 26));
    }

    #[test]
    fn a_pass_fits_both_local_profiles() {
        // 25 letters, teams of 8: the slotted profile of 24 rows a work-item is 6 chunks
        // of 32 words a letter, more than one packed one (8 x 12 + 10 words), less than
        // the four of a launch with long groups.
        assert_eq!(super::profile_bytes(25, 8, 24, 1), 25 * 6 * 32 * 4);
        assert_eq!(super::profile_bytes(25, 8, 24, 4), 25 * (96 + 10) * 4 * 4);
        // Teams of 16 and 32 (two regions of 16 lanes) hold one copy of each
        // work-item's rows slotted, a little less than packed.
        assert_eq!(super::profile_bytes(25, 16, 16, 1), 25 * (128 + 18) * 4);
        assert_eq!(super::profile_bytes(25, 32, 8, 1), 25 * (128 + 34) * 4);
    }
}
