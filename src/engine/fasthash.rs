//! A fast hasher for the engine's maps keyed by small integers (BDD nodes,
//! component ids, event masks), in place of the standard library's `SipHash`.
//!
//! The engine builds one small BDD and a few maps per entrypoint, tens of
//! thousands of times in a large model; `SipHash`, which resists collision
//! attacks on keys an adversary chooses, was about a tenth of that time.
//! The keys here are indices the engine numbers itself, and no result
//! depends on a map's iteration order (they are only looked up), so
//! `foldhash`'s fixed-seed hasher serves and changes no figure. The seed is
//! fixed (not drawn per process), so even a map's internal layout is the same
//! from run to run.

use std::collections::{HashMap, HashSet};

/// The hasher's builder: `foldhash`'s fast hash with its fixed default seed.
pub type FastState = foldhash::fast::FixedState;
/// A `HashMap` with [`FastState`].
pub type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastState`].
pub type FastSet<T> = HashSet<T, FastState>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn keys_that_differ_hash_apart_and_are_found_again() {
        // (1, 2) and (2, 1) must not collide, and the same key hashes the
        // same in two builders (the seed is fixed, not per process).
        let state = FastState::default();
        assert_ne!(
            state.hash_one((1_u32, 2_u32)),
            state.hash_one((2_u32, 1_u32))
        );
        assert_eq!(
            state.hash_one((7_u32, 9_u32)),
            FastState::default().hash_one((7_u32, 9_u32))
        );
        let mut map: FastMap<(u32, u32), usize> = FastMap::default();
        for i in 0..1_000 {
            map.insert((i, i * 7), i as usize);
        }
        assert_eq!(map.len(), 1_000);
        assert_eq!(map.get(&(999, 6_993)), Some(&999));
        assert_eq!(map.get(&(999, 6_994)), None);
    }
}
