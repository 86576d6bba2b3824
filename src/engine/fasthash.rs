//! A fast hasher for the engine's maps keyed by small integers (BDD nodes,
//! component ids, event masks), in place of the standard library's `SipHash`.
//!
//! The engine builds one small BDD and a few maps per entrypoint, tens of
//! thousands of times in a large model; `SipHash`, which resists collision
//! attacks on keys an adversary chooses, was about a tenth of that time.
//! The keys here are indices the engine numbers itself, and no result
//! depends on a map's iteration order (they are only looked up), so the
//! multiply-rotate hash of rustc's `FxHasher` serves and changes no figure.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<T> = HashSet<T, BuildHasherDefault<FastHasher>>;

/// rustc's `FxHasher`: each word is mixed in by a rotate, an xor and a
/// multiplication by a large odd constant.
#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &byte in chunks.remainder() {
            self.add(u64::from(byte));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_differ_hash_apart_and_are_found_again() {
        // (1, 2) and (2, 1) must not collide: the rotation makes the mix
        // depend on the order of the words.
        let hash = |a: u32, b: u32| {
            let mut h = FastHasher::default();
            h.write_u32(a);
            h.write_u32(b);
            h.finish()
        };
        assert_ne!(hash(1, 2), hash(2, 1));
        let mut map: FastMap<(u32, u32), usize> = FastMap::default();
        for i in 0..1_000 {
            map.insert((i, i * 7), i as usize);
        }
        assert_eq!(map.len(), 1_000);
        assert_eq!(map.get(&(999, 6_993)), Some(&999));
        assert_eq!(map.get(&(999, 6_994)), None);
    }
}
