//! A small reduced ordered binary decision diagram, enough to evaluate the
//! probability of a monotone structure function exactly when alternatives
//! (`any_of`, `at_least`) share dependencies, and its partial derivatives
//! (Birnbaum importance) for the improvement table.
//!
//! Nodes are created children first, so their indices are a topological
//! order: probabilities are one forward pass, derivatives one backward pass.

use super::fasthash::FastMap;

/// A node index; 0 is false, 1 is true.
pub type Ref = u32;
/// The false terminal.
pub const FALSE: Ref = 0;
/// The true terminal.
pub const TRUE: Ref = 1;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Node {
    var: u32,
    low: Ref,
    high: Ref,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    And,
    Or,
}

/// A BDD manager over variables `0..n`, ordered by number.
#[derive(Default)]
pub struct Bdd {
    nodes: Vec<Node>,
    unique: FastMap<Node, Ref>,
    memo: FastMap<(Op, Ref, Ref), Ref>,
    /// Most nodes this manager may hold; creating one more sets `exceeded`.
    limit: usize,
    /// Whether an operation stopped at `limit` (every result since is
    /// meaningless and the caller must give up on this manager).
    exceeded: bool,
}

/// Node count above which building gives up (the caller falls back to a
/// bounded method).
pub const MAX_NODES: usize = 2_000_000;

impl Bdd {
    /// An empty manager holding the two terminals.
    #[must_use]
    pub fn new() -> Self {
        let terminal = Node {
            var: u32::MAX,
            low: 0,
            high: 0,
        };
        Self {
            nodes: vec![terminal, terminal],
            unique: FastMap::default(),
            memo: FastMap::default(),
            limit: MAX_NODES,
            exceeded: false,
        }
    }

    /// An empty manager that stops at `limit` nodes (at most [`MAX_NODES`]).
    #[must_use]
    pub fn with_limit(limit: usize) -> Self {
        let mut bdd = Self::new();
        bdd.limit = limit.min(MAX_NODES);
        bdd
    }

    /// Number of nodes, terminals included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether only the terminals exist.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 2
    }

    fn make(&mut self, var: u32, low: Ref, high: Ref) -> Ref {
        if low == high {
            return low;
        }
        let node = Node { var, low, high };
        if let Some(&existing) = self.unique.get(&node) {
            return existing;
        }
        if self.nodes.len() >= self.limit {
            self.exceeded = true;
            return FALSE;
        }
        let index = Ref::try_from(self.nodes.len()).unwrap_or(Ref::MAX);
        self.nodes.push(node);
        self.unique.insert(node, index);
        index
    }

    /// The function "variable `var` is true".
    pub fn var(&mut self, var: u32) -> Ref {
        self.make(var, FALSE, TRUE)
    }

    /// The node "if `var` then `high` else `low`": both children must test
    /// only variables after `var` (or be terminals).
    pub fn node(&mut self, var: u32, low: Ref, high: Ref) -> Ref {
        if self.exceeded {
            return FALSE;
        }
        self.make(var, low, high)
    }

    /// The variable and the two children of a node (not a terminal).
    #[must_use]
    pub fn parts(&self, r: Ref) -> (u32, Ref, Ref) {
        let n = self.nodes[r as usize];
        (n.var, n.low, n.high)
    }

    fn top(&self, r: Ref) -> u32 {
        self.nodes[r as usize].var
    }

    fn apply(&mut self, op: Op, a: Ref, b: Ref) -> Ref {
        /// A step of the walk: a pair to combine, or the node to make from
        /// the two results on top of `results` (low below high).
        enum Task {
            Visit(Ref, Ref),
            Make((Op, Ref, Ref), u32),
        }
        // The absorbing terminal decides; the neutral one leaves the other side.
        let (absorbing, neutral) = match op {
            Op::And => (FALSE, TRUE),
            Op::Or => (TRUE, FALSE),
        };
        // The recursion "low cofactors, then high, then make" walked with
        // an explicit stack on the heap: a diagram thousands of variables
        // deep would overflow a worker thread's stack. The steps (memo
        // look-ups and inserts, nodes made) come in the recursive order, so
        // node numbers and every result are the same.
        // `next` is the task to run at once (the first pair, then each low
        // cofactor pair), so a call answered by a terminal or the memo
        // allocates nothing.
        let mut next = Some(Task::Visit(a, b));
        let mut tasks: Vec<Task> = Vec::new();
        let mut results: Vec<Ref> = Vec::new();
        while let Some(task) = next.take().or_else(|| tasks.pop()) {
            let (key, var) = match task {
                Task::Visit(a, b) => {
                    let shortcut = if self.exceeded {
                        Some(FALSE)
                    } else if a == absorbing || b == absorbing {
                        Some(absorbing)
                    } else if a == neutral || a == b {
                        Some(b)
                    } else if b == neutral {
                        Some(a)
                    } else {
                        self.memo.get(&(op, a.min(b), a.max(b))).copied()
                    };
                    if let Some(r) = shortcut {
                        if tasks.is_empty() {
                            return r;
                        }
                        results.push(r);
                        continue;
                    }
                    let (va, vb) = (self.top(a), self.top(b));
                    let var = va.min(vb);
                    let (a_low, a_high) = if va == var {
                        (self.nodes[a as usize].low, self.nodes[a as usize].high)
                    } else {
                        (a, a)
                    };
                    let (b_low, b_high) = if vb == var {
                        (self.nodes[b as usize].low, self.nodes[b as usize].high)
                    } else {
                        (b, b)
                    };
                    tasks.push(Task::Make((op, a.min(b), a.max(b)), var));
                    tasks.push(Task::Visit(a_high, b_high));
                    next = Some(Task::Visit(a_low, b_low));
                    continue;
                }
                Task::Make(key, var) => (key, var),
            };
            let high = results.pop().unwrap_or(FALSE);
            let low = results.pop().unwrap_or(FALSE);
            let r = self.make(var, low, high);
            if !self.exceeded {
                // The memo is a cache: dropping it when it outgrows the node
                // budget keeps memory bounded without changing any result.
                if self.memo.len() >= 4 * self.limit {
                    self.memo.clear();
                }
                self.memo.insert(key, r);
            }
            if tasks.is_empty() {
                return r;
            }
            results.push(r);
        }
        FALSE
    }

    /// Conjunction.
    pub fn and(&mut self, a: Ref, b: Ref) -> Ref {
        self.apply(Op::And, a, b)
    }

    /// Disjunction.
    pub fn or(&mut self, a: Ref, b: Ref) -> Ref {
        self.apply(Op::Or, a, b)
    }

    /// "At least `k` of `items` are true", by the usual dynamic programme:
    /// `T(i, j) = (items[i] ∧ T(i+1, j−1)) ∨ T(i+1, j)`.
    pub fn at_least(&mut self, k: usize, items: &[Ref]) -> Ref {
        if k == 0 {
            return TRUE;
        }
        if k > items.len() {
            return FALSE;
        }
        // row[j] = at least j of items[i..] (j = 0..=k), built from the end.
        let mut row: Vec<Ref> = (0..=k).map(|j| if j == 0 { TRUE } else { FALSE }).collect();
        for &item in items.iter().rev() {
            if self.exceeded {
                return FALSE;
            }
            let mut next = row.clone();
            for j in 1..=k {
                let with = self.and(item, row[j - 1]);
                next[j] = self.or(with, row[j]);
            }
            row = next;
        }
        row[k]
    }

    /// Drops every node `root` does not reach (the intermediate results of
    /// building) and the build caches, and returns the new root. Evaluation
    /// walks every node once per state, so dead nodes would cost every state.
    pub fn retain(&mut self, root: Ref) -> Ref {
        if root < 2 {
            self.nodes.truncate(2);
            self.unique.clear();
            self.memo.clear();
            return root;
        }
        let mut reached = vec![false; self.nodes.len()];
        let mut stack = vec![root];
        while let Some(r) = stack.pop() {
            if r < 2 || std::mem::replace(&mut reached[r as usize], true) {
                continue;
            }
            let n = self.nodes[r as usize];
            stack.extend([n.low, n.high]);
        }
        // Children were created before parents, so ascending order keeps
        // the indices topological.
        let mut new_index = vec![0 as Ref; self.nodes.len()];
        new_index[1] = TRUE;
        let mut nodes = vec![self.nodes[0], self.nodes[1]];
        for (old, node) in self.nodes.iter().enumerate().skip(2) {
            if reached[old] {
                new_index[old] = Ref::try_from(nodes.len()).unwrap_or(Ref::MAX);
                nodes.push(Node {
                    var: node.var,
                    low: new_index[node.low as usize],
                    high: new_index[node.high as usize],
                });
            }
        }
        self.nodes = nodes;
        self.unique.clear();
        self.memo.clear();
        new_index[root as usize]
    }

    /// Renames the variables of every node by `rename`, which must keep
    /// their relative order (so the diagram stays ordered and reduced);
    /// returns `root` (unchanged: only labels move).
    pub fn renumber(&mut self, root: Ref, rename: impl Fn(u32) -> u32) -> Ref {
        for node in self.nodes.iter_mut().skip(2) {
            node.var = rename(node.var);
        }
        self.unique.clear();
        self.memo.clear();
        root
    }

    /// Whether an operation hit the node limit: the results are then
    /// meaningless (the caller falls back to another order or method).
    #[must_use]
    pub fn too_large(&self) -> bool {
        self.exceeded
    }

    /// The probability that `root` is true when variable `v` is true with
    /// probability `p[v]`, independently; `scratch` holds per-node values.
    pub fn probability(&self, root: Ref, p: &[f64], scratch: &mut Vec<f64>) -> f64 {
        scratch.clear();
        scratch.resize(self.nodes.len(), 0.0);
        scratch[1] = 1.0;
        for index in 2..=root as usize {
            let n = self.nodes[index];
            let pv = p[n.var as usize];
            scratch[index] = pv * scratch[n.high as usize] + (1.0 - pv) * scratch[n.low as usize];
        }
        scratch[root as usize]
    }

    /// The probability that `root` is false when variable `v` is true with
    /// probability `p[v]` and false with probability `u[v]` (`1 − p[v]`,
    /// given apart so that a small one keeps its digits): the complement
    /// of [`Bdd::probability`], summed in failure space.
    pub fn failure(&self, root: Ref, p: &[f64], u: &[f64], scratch: &mut Vec<f64>) -> f64 {
        scratch.clear();
        scratch.resize(self.nodes.len().max(2), 0.0);
        scratch[0] = 1.0;
        for index in 2..=root as usize {
            let n = self.nodes[index];
            let v = n.var as usize;
            scratch[index] = p[v] * scratch[n.high as usize] + u[v] * scratch[n.low as usize];
        }
        scratch[root as usize]
    }

    /// Partial derivatives of the probability of `root` with respect to each
    /// variable's probability, after [`Bdd::probability`] filled `values`.
    /// Adds `weight × ∂P/∂p[v]` into `out[v]`.
    pub fn add_derivatives(
        &self,
        root: Ref,
        p: &[f64],
        values: &[f64],
        weight: f64,
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        if root < 2 {
            return;
        }
        scratch.clear();
        scratch.resize(root as usize + 1, 0.0);
        scratch[root as usize] = 1.0;
        for index in (2..=root as usize).rev() {
            let d = scratch[index];
            if d == 0.0 {
                continue;
            }
            let n = self.nodes[index];
            let pv = p[n.var as usize];
            out[n.var as usize] += weight * d * (values[n.high as usize] - values[n.low as usize]);
            if n.high >= 2 {
                scratch[n.high as usize] += d * pv;
            }
            if n.low >= 2 {
                scratch[n.low as usize] += d * (1.0 - pv);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_of_three_matches_the_closed_form() {
        let mut bdd = Bdd::new();
        let vars: Vec<Ref> = (0..3).map(|v| bdd.var(v)).collect();
        let root = bdd.at_least(2, &vars);
        let p = [0.9, 0.9, 0.9];
        let mut scratch = Vec::new();
        // 2-of-3 at 0.9: 3 × 0.9² × 0.1 + 0.9³ = 0.243 + 0.729 = 0.972
        assert!((bdd.probability(root, &p, &mut scratch) - 0.972).abs() < 1e-12);
    }

    #[test]
    fn a_shared_variable_is_counted_once() {
        let mut bdd = Bdd::new();
        let (db, a, b) = (bdd.var(0), bdd.var(1), bdd.var(2));
        // (a ∧ db) ∨ (b ∧ db) = db ∧ (a ∨ b)
        let left = bdd.and(a, db);
        let right = bdd.and(b, db);
        let root = bdd.or(left, right);
        let p = [0.99, 0.9, 0.9];
        let mut values = Vec::new();
        // Building left the two partial conjunctions behind; only the three
        // nodes of db ∧ (a ∨ b) remain, with the same probability.
        let root = bdd.retain(root);
        assert_eq!(bdd.len(), 2 + 3);
        let got = bdd.probability(root, &p, &mut values);
        // 0.99 × (1 − 0.1²) = 0.99 × 0.99 = 0.9801, not the naive 1 − (1 − 0.891)² = 0.988119
        assert!((got - 0.9801).abs() < 1e-12);
        let mut d = vec![0.0; 3];
        let mut scratch = Vec::new();
        bdd.add_derivatives(root, &p, &values, 1.0, &mut scratch, &mut d);
        // ∂/∂p_db = 1 − 0.1² = 0.99; ∂/∂p_a = p_db × (1 − p_b) = 0.99 × 0.1 = 0.099
        assert!((d[0] - 0.99).abs() < 1e-12);
        assert!((d[1] - 0.099).abs() < 1e-12);
    }
}
