//! What a model says about slowness (docs/slow.md): a component's own
//! latency by percentile and its request pool (`workers`), and on an edge
//! the limits on concurrent calls (a bulkhead `pool`, `connections`), a
//! `connect_timeout`, a circuit `breaker` and `hedge`d requests. The
//! concurrency they imply in a state is `engine::concurrency`.

use super::units::{Duration, Percentile};

/// A service time by percentile, each at least the one before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Latency {
    /// The figures written, by [`Percentile::ALL`]'s order.
    pub by_percentile: [Option<Duration>; 5],
}

impl Latency {
    /// The figure written for `p`.
    #[must_use]
    pub fn at(&self, p: Percentile) -> Option<Duration> {
        let at = Percentile::ALL.iter().position(|q| *q == p)?;
        self.by_percentile[at]
    }

    /// The time a request is taken to hold a worker at normal load: the
    /// p99 when written (pools are sized for the slow tail: Hystrix's
    /// `peak rps × p99`), else the highest percentile written.
    #[must_use]
    pub fn held(&self) -> (Percentile, Duration) {
        if let Some(p99) = self.at(Percentile::P99) {
            return (Percentile::P99, p99);
        }
        Percentile::ALL
            .iter()
            .zip(&self.by_percentile)
            .rev()
            .find_map(|(p, d)| d.map(|d| (*p, d)))
            .unwrap_or((Percentile::P99, Duration(0)))
    }
}

/// A circuit breaker on an edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breaker {
    /// The share of failed calls in a window at which it opens.
    pub after: f64,
    /// Calls in the window.
    pub window: u32,
    /// How long it stays open before a trial call.
    pub open: Duration,
}

impl Default for Breaker {
    /// Hystrix's defaults: 50% of 20 calls, open 5 s.
    fn default() -> Self {
        Self {
            after: 0.5,
            window: 20,
            open: Duration(5_000),
        }
    }
}

/// Hedged requests on an edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hedge {
    /// The percentile of the target's latency after which a second attempt goes out.
    pub after: Percentile,
    /// Hedges as a share of calls at most; `None`: unbounded.
    pub max: Option<f64>,
}

impl Hedge {
    /// The share of calls hedged at normal latency: those slower than the
    /// percentile (5% after p95), capped by `max`.
    #[must_use]
    pub fn steady_share(&self) -> f64 {
        self.capped(self.after.above())
    }

    /// The share hedged in a broad slowdown, where every call passes the
    /// threshold: 100%, capped by `max`.
    #[must_use]
    pub fn slow_share(&self) -> f64 {
        self.capped(1.0)
    }

    fn capped(&self, share: f64) -> f64 {
        self.max.map_or(share, |max| share.min(max))
    }
}

/// The limits and defences of one edge; absent (`None` on the edge) when
/// it has none of them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EdgeLimits {
    /// A bulkhead: the most concurrent calls over the edge.
    pub pool: Option<u32>,
    /// The most connections to the target.
    pub connections: Option<u32>,
    /// Timeout of establishing a connection.
    pub connect_timeout: Option<Duration>,
    /// A circuit breaker.
    pub breaker: Option<Breaker>,
    /// Hedged requests.
    pub hedge: Option<Hedge>,
}

impl EdgeLimits {
    /// The most concurrent calls the edge admits: the smaller of `pool`
    /// and `connections`, `None` when neither is given.
    #[must_use]
    pub fn limit(&self) -> Option<u32> {
        match (self.pool, self.connections) {
            (Some(p), Some(c)) => Some(p.min(c)),
            (p, c) => p.or(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_sized_with_the_p99_else_the_slowest_figure() {
        let mut latency = Latency::default();
        latency.by_percentile[0] = Some(Duration(20));
        assert_eq!(latency.held(), (Percentile::P50, Duration(20)));
        latency.by_percentile[2] = Some(Duration(80));
        assert_eq!(latency.held(), (Percentile::P95, Duration(80)));
        latency.by_percentile[3] = Some(Duration(120));
        latency.by_percentile[4] = Some(Duration(400));
        assert_eq!(latency.held(), (Percentile::P99, Duration(120)));
    }

    #[test]
    fn a_hedge_after_p95_sends_five_percent_and_all_in_a_slowdown() {
        let open = Hedge {
            after: Percentile::P95,
            max: None,
        };
        assert!((open.steady_share() - 0.05).abs() < 1e-12);
        assert!((open.slow_share() - 1.0).abs() < 1e-12);
        let capped = Hedge {
            max: Some(0.02),
            ..open
        };
        assert!((capped.steady_share() - 0.02).abs() < 1e-12);
        assert!((capped.slow_share() - 0.02).abs() < 1e-12);
    }
}
