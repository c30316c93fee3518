//! CPU clusters from `CpuInfo` packets: Perfetto's `cpu.cluster_id` and `android_cpu_cluster_mapping`'s type.
//!
//! Restates trace processor's `SystemProbesParser::ParseCpuInfo` (`importers/proto/system_probes_parser.cc`)
//! and the stdlib's `android/cpu/cluster_type.sql` (google/perfetto @ ec5d16b1).

use crate::decode::CpuInfoCpu;

/// A CPU's cluster as `android_cpu_cluster_mapping.cluster_type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClusterType {
    /// `little`: the lowest cluster id (capacity or maximum frequency).
    Little,
    /// `medium`: the middle one of 3 clusters, or either middle one of 4.
    Medium,
    /// `big`: the highest cluster id.
    Big,
}

impl ClusterType {
    /// Perfetto's string: `little`, `medium` or `big`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterType::Little => "little",
            ClusterType::Medium => "medium",
            ClusterType::Big => "big",
        }
    }
}

/// The CPUs the trace's `CpuInfo` packets list, with their cluster types.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuClusters {
    /// Per CPU number: `None` when no packet lists it, else its cluster type (itself `None` unless the trace
    /// has 2, 3 or 4 clusters).
    by_cpu: Vec<Option<Option<ClusterType>>>,
}

impl CpuClusters {
    /// The cluster type of `cpu`; `None` when no `CpuInfo` lists it or the clusters are not 2, 3 or 4.
    pub fn cluster_type(&self, cpu: u32) -> Option<ClusterType> {
        self.by_cpu.get(cpu as usize).copied().flatten().flatten()
    }

    /// Whether some CPU has a cluster type (else every split by cluster is unknown).
    pub fn is_typed(&self) -> bool {
        self.by_cpu.iter().any(|c| matches!(c, Some(Some(_))))
    }

    /// `(cpu, cluster type)` of every CPU a `CpuInfo` packet lists, by CPU number.
    pub fn cpus(&self) -> impl Iterator<Item = (u32, Option<ClusterType>)> + '_ {
        (0u32..)
            .zip(&self.by_cpu)
            .filter_map(|(cpu, c)| Some((cpu, (*c)?)))
    }
}

/// Collects the `CpuInfo` packets of a trace: each sets the cluster id of the CPUs it lists, as trace
/// processor's `CpuTracker::SetCpuInfo` does packet by packet.
#[derive(Debug, Clone, Default)]
pub struct CpuClustersBuilder {
    /// Per CPU number, its latest cluster id.
    ids: Vec<Option<u32>>,
}

impl CpuClustersBuilder {
    /// One packet's CPUs (the n-th is CPU n); an empty packet changes nothing (Perfetto's `cpu_info_empty`).
    pub fn push(&mut self, cpus: &[CpuInfoCpu]) {
        if self.ids.len() < cpus.len() {
            self.ids.resize(cpus.len(), None);
        }
        for (slot, id) in self.ids.iter_mut().zip(cluster_ids(cpus)) {
            *slot = Some(id);
        }
    }

    /// `None` when no packet listed a CPU.
    pub fn build(self) -> Option<CpuClusters> {
        let mut distinct: Vec<u32> = self.ids.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.is_empty() {
            return None;
        }
        // `_cores` of cluster_type.sql: the types of ids 0.. for each count of distinct cluster ids.
        use ClusterType::*;
        let names: &[ClusterType] = match distinct.len() {
            2 => &[Little, Big],
            3 => &[Little, Medium, Big],
            4 => &[Little, Medium, Medium, Big],
            _ => &[],
        };
        let type_of = |id: u32| names.get(id as usize).copied();
        Some(CpuClusters {
            by_cpu: self.ids.iter().map(|id| id.map(type_of)).collect(),
        })
    }
}

/// One packet's cluster ids, by CPU: numbered from 0 in increasing `capacity` when every CPU has one, else in
/// increasing maximum frequency when every CPU lists frequencies, else all 0; equal values share an id.
fn cluster_ids(cpus: &[CpuInfoCpu]) -> Vec<u32> {
    let keys: Option<Vec<u32>> = cpus
        .iter()
        .map(|c| c.capacity)
        .collect::<Option<_>>()
        .or_else(|| cpus.iter().map(|c| c.max_frequency_khz).collect());
    let Some(keys) = keys else {
        return vec![0; cpus.len()];
    };
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    keys.iter()
        .map(|k| distinct.partition_point(|d| d < k) as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ClusterType::*;

    fn cpu(capacity: Option<u32>, max_frequency_khz: Option<u32>) -> CpuInfoCpu {
        CpuInfoCpu {
            capacity,
            max_frequency_khz,
        }
    }

    fn types(packets: &[&[CpuInfoCpu]]) -> Option<Vec<Option<ClusterType>>> {
        let mut b = CpuClustersBuilder::default();
        for p in packets {
            b.push(p);
        }
        let c = b.build()?;
        Some(c.cpus().map(|(_, t)| t).collect())
    }

    #[test]
    fn ids_follow_capacity_else_maximum_frequency_else_one_cluster() {
        // Capacities 160, 1024, 498, 160: ids 0, 2, 1, 0 (frequencies ignored).
        let caps = [(160, 9), (1024, 1), (498, 5), (160, 7)].map(|(c, f)| cpu(Some(c), Some(f)));
        assert_eq!(cluster_ids(&caps), [0, 2, 1, 0]);
        // One capacity missing: by maximum frequency.
        let freqs = [
            cpu(Some(1), Some(1800)),
            cpu(None, Some(2400)),
            cpu(Some(3), Some(1800)),
        ];
        assert_eq!(cluster_ids(&freqs), [0, 1, 0]);
        // Neither everywhere: all 0.
        assert_eq!(
            cluster_ids(&[cpu(None, Some(5)), cpu(Some(2), None)]),
            [0, 0]
        );
    }

    #[test]
    fn two_three_and_four_clusters_are_typed_one_and_five_are_not() {
        let caps = |c: &[u32]| c.iter().map(|&c| cpu(Some(c), None)).collect::<Vec<_>>();
        assert_eq!(
            types(&[&caps(&[2, 1, 2])]),
            Some(vec![Some(Big), Some(Little), Some(Big)])
        );
        assert_eq!(
            types(&[&caps(&[1, 2, 3])]),
            Some(vec![Some(Little), Some(Medium), Some(Big)])
        );
        assert_eq!(
            types(&[&caps(&[4, 3, 2, 1])]),
            Some([Big, Medium, Medium, Little].map(Some).to_vec())
        );
        assert_eq!(types(&[&caps(&[7, 7])]), Some(vec![None, None]));
        assert_eq!(types(&[&caps(&[1, 2, 3, 4, 5])]), Some(vec![None; 5]));
        // No packet, or only empty ones: no clusters at all.
        assert_eq!(types(&[]), None);
        assert_eq!(types(&[&[]]), None);
    }

    #[test]
    fn a_later_packet_sets_the_ids_of_the_cpus_it_lists() {
        // CPUs 0-2 get ids 0, 1, 2; then CPUs 0 and 1 share id 0: ids 0, 0, 2 are two clusters, and id 2 has
        // no type among two (cluster_type.sql joins on id and count).
        let mut b = CpuClustersBuilder::default();
        b.push(&[1, 2, 3].map(|c| cpu(Some(c), None)));
        b.push(&[cpu(Some(5), None), cpu(Some(5), None)]);
        let c = b.build().unwrap();
        assert_eq!(
            c.cpus().collect::<Vec<_>>(),
            [(0, Some(Little)), (1, Some(Little)), (2, None)]
        );
        assert!(c.is_typed());
        assert_eq!(c.cluster_type(1), Some(Little));
        assert_eq!(c.cluster_type(2), None);
        assert_eq!(c.cluster_type(3), None);
    }
}
