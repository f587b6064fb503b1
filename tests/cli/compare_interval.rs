//! The θ interval a compare report publishes covers at least 95%, by exact enumeration.
//!
//! A compare run stops when the lattice on the discordant stream decides, or at `max_pairs`
//! pairs, when the discordant count m reached is Binomial(max_pairs, d) — independent of θ.
//! Given m, the run is the lattice cut at m trials, and the report publishes the full
//! lattice's stage-wise interval at a decided state and the cut lattice's at a cut-off one
//! (src/report/model/build.rs `pass_rate`). So if that mixed procedure covers at least 95% at
//! every θ for every m, the published interval does for every discordance d and every
//! `max_pairs`. This test computes the coverage exactly, state by state, from the published
//! lattice, on a grid of θ, for every cut m (a sample of them on the long lattice).

use gate::stats::compare::{CompareDesign, CompareSpec, Effect};
use gate::stats::lattice::State;
use gate::stats::post_stop::{SampleSpace, truncated};

#[test]
fn theta_interval_covers_95_percent_wherever_max_pairs_cuts_the_run() {
    for (r, every) in [(3.0, 1), (2.25, 3)] {
        let d = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(r))).expect("design");
        let b = &d.boundaries;
        let full = SampleSpace::new(b);
        for m in (1..=b.max_trials()).filter(|m| *m <= 12 || m % every == 0) {
            let cut = truncated(b, m).expect("a cut inside the lattice");
            let space = SampleSpace::new(&cut);
            let cis: Vec<_> = space
                .states()
                .iter()
                .map(|s| {
                    let at = if b.decide(s.trials, s.failures) == State::Continue {
                        &space
                    } else {
                        &full
                    };
                    at.estimate(s.trials, s.failures, 0.95)
                        .expect("an estimate")
                        .interval
                })
                .collect();
            // p = 1 − θ, the lattice's success rate (a head win); a grid of 99 rates.
            for i in 1..100 {
                let p = i as f64 / 100.0;
                let cov: f64 = space
                    .states()
                    .iter()
                    .zip(&cis)
                    .filter(|(_, ci)| ci.lo <= p && p <= ci.hi)
                    .map(|(s, _)| s.prob(p))
                    .sum();
                assert!(
                    cov >= 0.95 - 1e-9,
                    "R {r}: cut at {m} discordant pairs, θ = {:.2}: coverage {cov}",
                    1.0 - p
                );
            }
        }
    }
}
