//! Database search: one query against many subjects, every subject's exact optimal
//! local score. Each kernel variant has a host module here and a source in `cl/`
//! of the same name (`plain` ↔ `cl/scan_plain.cl`).

pub mod plain;

/// Subjects packed for the device: residues back to back, with each subject's offset
/// and length.
#[derive(Debug, Clone, Default)]
pub struct PackedSubjects {
    pub residues: Vec<u8>,
    pub offsets: Vec<u32>,
    pub lengths: Vec<u32>,
}

impl PackedSubjects {
    /// Packs encoded subjects; fails when the total exceeds 4 G residues.
    pub fn new<S: AsRef<[u8]>>(subjects: &[S]) -> crate::Result<PackedSubjects> {
        let mut p = PackedSubjects::default();
        for s in subjects {
            let s = s.as_ref();
            let offset = u32::try_from(p.residues.len())
                .ok()
                .filter(|o| o.checked_add(s.len() as u32).is_some() && s.len() <= u32::MAX as usize)
                .ok_or_else(|| crate::Error::InvalidArgument("more than 4 G residues in one batch".into()))?;
            p.offsets.push(offset);
            p.lengths.push(s.len() as u32);
            p.residues.extend_from_slice(s);
        }
        Ok(p)
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }
}
