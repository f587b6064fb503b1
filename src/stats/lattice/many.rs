//! The lattice's one DP, [`Boundaries::walk`], at one rate or several at once, and what is
//! built on it: [`Boundaries::oc`] (one lane), [`Boundaries::oc_many`] (several rates of one
//! lattice in one walk), the terminal states and the stops by trial (one lane).
//!
//! Several rates of the same lattice are walked together, their states interleaved
//! `[state][lane]`, every lane doing exactly the IEEE operations it would do alone, in the
//! same order: the window of undecided states depends only on the lattice, never on the
//! rate, so it is common to every lane, and the row's arithmetic vectorises across lanes. A
//! row is a plain map (each entry from two of the row before, no chain of additions through
//! it: the ASN is summed from the stops), four doubles to an AVX2 register when the CPU has
//! it. The tests hold every lane, bit for bit, to a plain full-matrix DP (`reference` in
//! `lattice/tests.rs`).
//!
//! Two things keep each lane's arithmetic and only reorder independent work: the absorbed
//! ends of a row are found from the row before its masses are computed (they depend on the
//! row and the window only); and a lane whose walk would have stopped (undecided mass,
//! checked every [`MASS_CHECK`] rows, below the smallest normal double) is zeroed, so it
//! adds nothing more while the others go on.

use super::{Boundaries, MASS_CHECK, Oc, State, Sum};

/// Rates walked together in one pass. Measured (`lanes_against_walks`, a 164,840-row Wald
/// lattice, shared 2-core Xeon with AVX2): a 4-lane pass costs 2.5 to 3 one-lane walks, a
/// 2-lane pass about 2; 4 fills one AVX2 register and fits the 3 rates of two speculative
/// halvings (wider passes take SSE2 and cost more than their lanes walked one by one).
const LANES: usize = 4;

impl Boundaries {
    /// [`Boundaries::oc`] at every rate of `ps`, bit for bit: element i is `self.oc(ps[i])`
    /// (NaN outside [0, 1], the closed form for a single plan), computed by walking the
    /// lattice at up to a few rates at once, which costs far less than one walk per rate.
    pub fn oc_many(&self, ps: &[f64]) -> Vec<Oc> {
        if self.single.is_some() {
            return ps.iter().map(|&p| self.oc(p)).collect();
        }
        let mut out = vec![Oc::NAN; ps.len()];
        let inside: Vec<usize> = (0..ps.len())
            .filter(|&i| (0.0..=1.0).contains(&ps[i]))
            .collect();
        for chunk in inside.chunks(LANES) {
            // A short chunk is padded with its last rate; the copies are dropped.
            let rate = |l: usize| ps[chunk[l.min(chunk.len() - 1)]];
            let ocs: Vec<Oc> = match chunk.len() {
                1 => self.oc_lanes::<1>([ps[chunk[0]]]).to_vec(),
                2 => self.oc_lanes::<2>(std::array::from_fn(rate)).to_vec(),
                _ => self.oc_lanes::<LANES>(std::array::from_fn(rate)).to_vec(),
            };
            for (&i, oc) in chunk.iter().zip(ocs) {
                out[i] = oc;
            }
        }
        out
    }

    /// [`Boundaries::oc`] at `L` rates (each in [0, 1]) in one [`Boundaries::walk`]: each
    /// lane's stops summed (compensated) in the order the walk reports them, and its ASN from
    /// the stops (t times each stop's mass; the sum over rows of the undecided mass in exact
    /// arithmetic).
    pub(super) fn oc_lanes<const L: usize>(&self, rates: [f64; L]) -> [Oc; L] {
        // [P(PASS), P(FAIL), P(INCONCLUSIVE), ASN], lane by lane.
        let mut sums = [[Sum::default(); L]; 4];
        self.walk(rates, |t, _, state, m| {
            let k = state.stop_index();
            for l in 0..L {
                if m[l] > 0.0 {
                    sums[3][l].add(t as f64 * m[l]);
                    sums[k][l].add(m[l]);
                }
            }
        });
        std::array::from_fn(|l| Oc::of_sums(sums.map(|s| s[l])))
    }

    /// The DP: walk the lattice at `L` success rates (each in [0, 1]) at once, calling
    /// `stop(t, f, state, masses)` for every absorbing state where some lane's mass is
    /// positive (`masses[l]` that of lane l; a lane's stops are those whose mass is positive).
    /// Each lane's stops come in the same order: PASS from the fewest failures up, FAIL from
    /// the most failures down, then, on the last row, the truncated states in order.
    ///
    /// A lane's walk ends early only when its undecided mass, summed every [`MASS_CHECK`]
    /// rows, is below the smallest normal double: what is left is dropped (it could change
    /// no figure gate prints) rather than walked through slow subnormal arithmetic.
    pub(super) fn walk<const L: usize>(
        &self,
        rates: [f64; L],
        mut stop: impl FnMut(u64, u64, State, [f64; L]),
    ) {
        // 1 - p is exact for p >= 1/2 (Sterbenz); below that take p back from q, so that
        // p + q == 1 exactly and no mass is created or lost.
        let q: [f64; L] = std::array::from_fn(|l| 1.0 - rates[l]);
        let p: [f64; L] =
            std::array::from_fn(|l| if rates[l] < 0.5 { 1.0 - q[l] } else { rates[l] });
        let max = self.max_trials();
        // cur[i][l] = P(undecided after t trials with lo + i failures) in lane l.
        let mut lo = 0u64;
        let mut cur: Vec<[f64; L]> = vec![[1.0; L]];
        let mut next: Vec<[f64; L]> = Vec::new();
        let mut live = [true; L];
        // next[i] of the row being built: cur[i-1] q + cur[i] p (one term at either end).
        let step = |cur: &[[f64; L]], i: usize| -> [f64; L] {
            let n = cur.len();
            std::array::from_fn(|l| {
                if i == 0 {
                    cur[0][l] * p[l]
                } else if i == n {
                    cur[n - 1][l] * q[l]
                } else {
                    cur[i - 1][l] * q[l] + cur[i][l] * p[l]
                }
            })
        };
        let mut absorb = |t: u64, f: u64, state: State, m: [f64; L]| {
            if m.iter().any(|&m| m > 0.0) {
                stop(t, f, state, m);
            }
        };
        for t in 1..=max {
            if (t - 1).is_multiple_of(MASS_CHECK) {
                // Each lane's undecided mass, summed in index order, all lanes in one pass
                // (so their chains of additions overlap).
                let mut undecided = [-0.0f64; L];
                for m in &cur {
                    for l in 0..L {
                        undecided[l] += m[l];
                    }
                }
                for l in 0..L {
                    if live[l] && undecided[l] < f64::MIN_POSITIVE {
                        // The lane's mass is dropped, so it has no more stops (no mass is
                        // positive) while the others go on.
                        live[l] = false;
                        for m in cur.iter_mut() {
                            m[l] = 0.0;
                        }
                    }
                }
                if !live.contains(&true) {
                    break;
                }
            }
            let row = self.rows[(t - 1) as usize];
            let last = t == max;
            // The absorbed ends, from the row and the window alone.
            let len = cur.len() + 1;
            let (mut a, mut b) = (0usize, len);
            while a < b && row.pass_max_failures.is_some_and(|r| lo + a as u64 <= r) {
                a += 1;
            }
            while b > a
                && row
                    .fail_min_failures
                    .is_some_and(|r| lo + (b - 1) as u64 >= r)
            {
                b -= 1;
            }
            for i in 0..a {
                absorb(t, lo + i as u64, State::Pass, step(&cur, i));
            }
            for i in (b..len).rev() {
                absorb(t, lo + i as u64, State::Fail, step(&cur, i));
            }
            if last {
                for i in a..b {
                    absorb(t, lo + i as u64, State::Truncated, step(&cur, i));
                }
                break;
            }
            // The undecided window a..b becomes the next row's `cur`. Every entry of it is
            // written below, so `next` keeps whatever it held rather than be zeroed first
            // (which would cost as much as the row's arithmetic).
            next.resize(b - a, [0.0; L]);
            let interior = a.max(1)..b.min(len - 1);
            let mut k = 0;
            if a == 0 && b > 0 {
                next[0] = step(&cur, 0);
                k = 1;
            }
            if !interior.is_empty() {
                let from = &cur[interior.start - 1..interior.end];
                let to = &mut next[k..k + interior.len()];
                interior_step(from, to, &p, &q);
                k += interior.len();
            }
            if b == len && len > a.max(1) {
                next[k] = step(&cur, len - 1);
            }
            std::mem::swap(&mut cur, &mut next);
            lo += a as u64;
            if cur.is_empty() {
                break;
            }
        }
    }
}

/// `to[i] = from[i] q + from[i + 1] p` lane by lane: the bulk of a row, where the time goes.
/// For 1, 2 and 4 lanes (all `oc_many` uses) with AVX2, detected at run time since the build
/// targets baseline x86-64: [`avx2_flat_step`]; other even lane counts: SSE2; else the plain
/// loop. Every form does the same IEEE multiplications and additions per lane, never fused
/// (Rust does not contract `a * b + c` into an FMA, and FMA is not enabled).
#[inline(always)]
fn interior_step<const L: usize>(
    from: &[[f64; L]],
    to: &mut [[f64; L]],
    p: &[f64; L],
    q: &[f64; L],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if 4 % L == 0 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above).
            unsafe { avx2_flat_step(from, to, p, q) };
            return;
        }
        if L.is_multiple_of(2) {
            sse2_interior_step(from, to, p, q);
            return;
        }
    }
    plain_interior_step(from, to, p, q);
}

/// [`interior_step`] two lanes to an SSE2 register (baseline on x86-64): the same IEEE
/// multiplications and additions per lane (no FMA). For two lanes the compiler, left to
/// itself, vectorised across the entries of a row instead, with a shuffle per entry.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sse2_interior_step<const L: usize>(
    from: &[[f64; L]],
    to: &mut [[f64; L]],
    p: &[f64; L],
    q: &[f64; L],
) {
    use std::arch::x86_64::{__m128d, _mm_add_pd, _mm_loadu_pd, _mm_mul_pd, _mm_storeu_pd};
    assert!(L.is_multiple_of(2) && L <= 16 && to.len() + 1 == from.len());
    // SAFETY: every load and store is of two lanes 2j, 2j + 1 < L of an `[f64; L]` that
    // is borrowed for it, so in bounds; SSE2 is enabled on every x86-64 target.
    unsafe {
        let load = |a: &[f64; L], j: usize| _mm_loadu_pd(a.as_ptr().add(2 * j));
        let mut pv: [__m128d; 8] = [load(p, 0); 8];
        let mut qv: [__m128d; 8] = [load(q, 0); 8];
        for j in 1..L / 2 {
            pv[j] = load(p, j);
            qv[j] = load(q, j);
        }
        for (x, w) in to.iter_mut().zip(from.windows(2)) {
            for j in 0..L / 2 {
                let v = _mm_add_pd(
                    _mm_mul_pd(load(&w[0], j), qv[j]),
                    _mm_mul_pd(load(&w[1], j), pv[j]),
                );
                _mm_storeu_pd(x.as_mut_ptr().add(2 * j), v);
            }
        }
    }
}

/// [`interior_step`] as written, which the compiler vectorises for the target it builds for.
#[inline(always)]
fn plain_interior_step<const L: usize>(
    from: &[[f64; L]],
    to: &mut [[f64; L]],
    p: &[f64; L],
    q: &[f64; L],
) {
    for (x, w) in to.iter_mut().zip(from.windows(2)) {
        for l in 0..L {
            x[l] = w[0][l] * q[l] + w[1][l] * p[l];
        }
    }
}

/// [`interior_step`] for 1, 2 or 4 lanes, four doubles to a 256-bit register whatever the
/// lane count: the row, flattened, is `to[j] = from[j] q[j % L] + from[j + L] p[j % L]`, and
/// since L divides 4 a register starting at a multiple of 4 always holds lanes 0, 1, 2, 3
/// mod L. Left to itself, the compiler vectorised 1 and 2 lanes across a row's entries with
/// shuffles, or not across lanes at all.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2_flat_step<const L: usize>(
    from: &[[f64; L]],
    to: &mut [[f64; L]],
    p: &[f64; L],
    q: &[f64; L],
) {
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_storeu_pd};
    assert!(4 % L == 0 && to.len() + 1 == from.len());
    let (f, t) = (from.as_flattened(), to.as_flattened_mut());
    let n = t.len();
    let pattern = |a: &[f64; L]| -> [f64; 4] { std::array::from_fn(|k| a[k % L]) };
    let (pp, qq) = (pattern(p), pattern(q));
    let mut j = 0;
    // SAFETY: j + 4 <= n, and f has n + L entries, so the loads of f[j..j + 4] and
    // f[j + L..j + L + 4] and the store to t[j..j + 4] are in bounds.
    unsafe {
        let (pv, qv) = (_mm256_loadu_pd(pp.as_ptr()), _mm256_loadu_pd(qq.as_ptr()));
        while j + 4 <= n {
            let a = _mm256_loadu_pd(f.as_ptr().add(j));
            let b = _mm256_loadu_pd(f.as_ptr().add(j + L));
            let v = _mm256_add_pd(_mm256_mul_pd(a, qv), _mm256_mul_pd(b, pv));
            _mm256_storeu_pd(t.as_mut_ptr().add(j), v);
            j += 4;
        }
    }
    for j in j..n {
        t[j] = f[j] * q[j % L] + f[j + L] * p[j % L];
    }
}

#[cfg(test)]
mod tests {
    use super::super::LatticeRow;
    use super::super::tests::reference;
    use super::*;
    use crate::stats::sprt::{Sprt, default_max_trials};
    use proptest::prelude::*;

    fn bits(oc: &Oc) -> [u64; 4] {
        [oc.p_pass, oc.p_fail, oc.p_inconclusive, oc.asn].map(f64::to_bits)
    }

    /// `oc_many` is `oc`, field by field, bit by bit; and, but for a single plan's closed
    /// form, both are the plain DP (`reference`), as are the terminal states (the reference
    /// costs max_trials² / 2 a rate: on a long lattice only the first rate is checked).
    fn same_as_one_by_one(b: &Boundaries, ps: &[f64]) -> Result<(), TestCaseError> {
        let many = b.oc_many(ps);
        prop_assert_eq!(many.len(), ps.len());
        let mut checked = 0;
        for (oc, &p) in many.iter().zip(ps) {
            prop_assert_eq!(bits(oc), bits(&b.oc(p)), "at {} ({:?})", p, oc);
            if !b.has_closed_form()
                && (0.0..=1.0).contains(&p)
                && (checked == 0 || b.max_trials() <= 400)
            {
                checked += 1;
                let (want, stops) = reference(b, p);
                prop_assert_eq!(bits(oc), bits(&want), "reference at {}", p);
                prop_assert_eq!(b.terminals(p), stops, "terminals at {}", p);
            }
        }
        Ok(())
    }

    /// Rows valid by construction: PASS at most `pass`, FAIL from `pass + 1 + gap`, either
    /// possibly absent; narrow gaps absorb fast, so walks also end by the mass running out.
    fn rows() -> impl Strategy<Value = Vec<LatticeRow>> {
        proptest::collection::vec((0u64..6, 0u64..8, 0u64..4, 0u8..8), 1..400).prop_map(|spec| {
            spec.iter()
                .enumerate()
                .map(|(i, &(pass, start, gap, kind))| {
                    let t = i as u64 + 1;
                    let pass = (t / 4).saturating_sub(start) + pass % 2;
                    let (pass_max_failures, fail_min_failures) = match kind {
                        0 => (None, None),
                        1 => (Some(pass), None),
                        2 => (None, Some(pass + 1 + gap)),
                        _ => (Some(pass), Some(pass + 1 + gap)),
                    };
                    LatticeRow {
                        trials: t,
                        pass_max_failures,
                        fail_min_failures,
                    }
                })
                .collect()
        })
    }

    fn rate() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => 0.0f64..=1.0,
            1 => Just(0.0),
            1 => Just(1.0),
            1 => Just(0.5),
            1 => 0.0f64..1e-3,
            1 => 0.999f64..1.0,
            1 => prop_oneof![Just(-0.0), Just(-0.1), Just(1.5), Just(f64::NAN), Just(f64::INFINITY)],
        ]
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn oc_many_is_oc_at_each_rate_on_random_lattices(
            rows in rows(),
            ps in proptest::collection::vec(rate(), 0..20),
        ) {
            let b = Boundaries::new(rows).unwrap();
            same_as_one_by_one(&b, &ps)?;
        }

        #[test]
        fn oc_many_is_oc_at_each_rate_on_wald_and_single_rules(
            healthy in 0.3f64..0.99,
            gap in 0.02f64..0.2,
            alpha in 0.01f64..0.2,
            beta in 0.01f64..0.2,
            n in 1u64..300,
            c_frac in 0.0f64..1.0,
            ps in proptest::collection::vec(rate(), 0..20),
        ) {
            let regressed = (healthy - gap).max(0.05);
            let max = default_max_trials(healthy, regressed, alpha, beta).unwrap().min(2000);
            let wald = Boundaries::wald(&Sprt::new(healthy, regressed, alpha, beta, max).unwrap());
            same_as_one_by_one(&wald, &ps)?;
            let c = ((n as f64) * c_frac) as u64 % n;
            let single = Boundaries::single(n, c).unwrap();
            same_as_one_by_one(&single, &ps)?;
            // The walk of a single plan's rows (not its closed form) at every lane count.
            let inside: Vec<f64> = ps.iter().copied().filter(|p| (0.0..=1.0).contains(p)).collect();
            if let Some(&p0) = inside.first() {
                let lane = |l: usize| inside[l % inside.len()];
                let walked = single.oc_lanes::<8>(std::array::from_fn(lane));
                for (l, oc) in walked.iter().enumerate() {
                    prop_assert_eq!(bits(oc), bits(&reference(&single, lane(l)).0), "{}", p0);
                }
            }
        }
    }

    /// Every compiled form of a row (plain loop, SSE2, AVX2) gives the
    /// plain loop's bits, whichever of them `interior_step` picks on this CPU.
    fn every_row_path_is_the_plain_loop<const L: usize>(seed: u64) {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [1usize, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65] {
            let from: Vec<[f64; L]> = (0..=n).map(|_| std::array::from_fn(|_| next())).collect();
            let rate: [f64; L] = std::array::from_fn(|_| next());
            let q: [f64; L] = std::array::from_fn(|l| 1.0 - rate[l]);
            let mut want = vec![[0.0; L]; n];
            plain_interior_step(&from, &mut want, &rate, &q);
            let bits = |v: &[[f64; L]]| v.iter().flatten().map(|m| m.to_bits()).collect::<Vec<_>>();
            let mut got = vec![[0.0; L]; n];
            interior_step(&from, &mut got, &rate, &q);
            assert_eq!(bits(&got), bits(&want), "interior_step, {L} lanes, {n}");
            #[cfg(target_arch = "x86_64")]
            {
                if L.is_multiple_of(2) {
                    let mut got = vec![[0.0; L]; n];
                    sse2_interior_step(&from, &mut got, &rate, &q);
                    assert_eq!(bits(&got), bits(&want), "SSE2, {L} lanes, {n}");
                }
                if 4 % L == 0 && std::arch::is_x86_feature_detected!("avx2") {
                    let mut got = vec![[0.0; L]; n];
                    // SAFETY: AVX2 is present (checked above).
                    unsafe { avx2_flat_step(&from, &mut got, &rate, &q) };
                    assert_eq!(bits(&got), bits(&want), "AVX2, {L} lanes, {n}");
                }
            }
        }
    }

    #[test]
    fn every_compiled_form_of_a_row_gives_the_same_bits() {
        every_row_path_is_the_plain_loop::<1>(1);
        every_row_path_is_the_plain_loop::<2>(2);
        every_row_path_is_the_plain_loop::<3>(3);
        every_row_path_is_the_plain_loop::<4>(4);
        every_row_path_is_the_plain_loop::<6>(6);
        every_row_path_is_the_plain_loop::<8>(8);
    }

    #[test]
    fn a_lane_whose_mass_runs_out_stops_while_the_others_go_on() {
        // Any failure FAILs and nothing passes before the end: the mass undecided after t
        // trials is p^t, below the smallest normal double within 160 trials at p = 0.01.
        // (No FAIL on the first trial, so the rows are not a single plan's closed form.)
        let b = Boundaries::from_fn(3000, |t| {
            let pass = (t == 3000).then_some(0);
            (pass, (t > 1).then_some(1))
        })
        .unwrap();
        assert!(!b.has_closed_form());
        let ps = [0.01, 0.999, 0.5, 0.9999, 0.0, 1.0, 1e-300, 0.3];
        for p in ps {
            let oc = b.oc(p);
            assert_eq!(bits(&oc), bits(&reference(&b, p).0), "{p}");
            let lanes = [p; 3];
            for lane in b.oc_lanes::<3>(lanes) {
                assert_eq!(bits(&lane), bits(&oc));
            }
        }
        let many = b.oc_many(&ps);
        for (oc, p) in many.iter().zip(ps) {
            assert_eq!(bits(oc), bits(&b.oc(p)), "{p}");
        }
        let eight = b.oc_lanes::<8>(ps);
        for (oc, p) in eight.iter().zip(ps) {
            assert_eq!(bits(oc), bits(&b.oc(p)), "{p}");
        }
    }

    #[test]
    fn oc_many_is_oc_on_a_calibrated_rule() {
        let d = crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.10, None).unwrap();
        let ps: Vec<f64> = (0..=40).map(|i| f64::from(i) / 40.0).collect();
        let many = d.boundaries.oc_many(&ps);
        for (oc, &p) in many.iter().zip(&ps) {
            assert_eq!(bits(oc), bits(&d.boundaries.oc(p)), "{p}");
        }
    }

    /// k rates in one pass against k walks on a long lattice (Wald's 60% vs 59.5%):
    /// `cargo test --release --lib lanes_against_walks -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn lanes_against_walks() {
        let max = default_max_trials(0.6, 0.595, 0.05, 0.10).unwrap();
        let b = Boundaries::wald(&Sprt::new(0.6, 0.595, 0.05, 0.10, max).unwrap());
        let ps = [0.595, 0.596, 0.597, 0.598, 0.599, 0.6, 0.5975, 0.5965];
        // The fastest of five runs: the machine is shared, and other work only slows a run.
        let time = |f: &dyn Fn() -> f64| {
            let mut best = (f64::INFINITY, 0.0);
            for _ in 0..5 {
                let start = std::time::Instant::now();
                let x = f();
                best = (best.0.min(start.elapsed().as_secs_f64()), x);
            }
            best
        };
        let (one, _) = time(&|| b.oc(ps[0]).asn);
        println!("{} rows; one walk {:.4} s", b.max_trials(), one);
        macro_rules! lanes {
            ($k:literal) => {{
                let (walks, x) = time(&|| ps[..$k].iter().map(|&p| b.oc(p).asn).sum());
                let rates: [f64; $k] = std::array::from_fn(|l| ps[l]);
                let (pass, y) = time(&|| b.oc_lanes::<$k>(rates).iter().map(|o| o.asn).sum());
                let (many, z) = time(&|| b.oc_many(&ps[..$k]).iter().map(|o| o.asn).sum());
                assert_eq!((x.to_bits(), y.to_bits()), (z.to_bits(), z.to_bits()));
                println!(
                    "k = {}: {} walks {:.4} s, one {}-lane pass {:.4} s ({:.2}x), oc_many {:.4} s ({:.2}x)",
                    $k, $k, walks, $k, pass, walks / pass, many, walks / many
                );
            }};
        }
        lanes!(1);
        lanes!(2);
        lanes!(3);
        lanes!(4);
        lanes!(6);
        lanes!(8);
    }
}
