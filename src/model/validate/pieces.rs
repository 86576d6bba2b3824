//! A model read in pieces (`super::super::chunks`), built piece by piece so
//! that neither the whole tree nor the whole raw model ever exists, its
//! problems located and ordered exactly as one pass reports them: in one
//! pass over the pieces when the entries' lines give their names and each
//! entry reads ([`built`]), else in two ([`reported`]).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::chunks::{self, Cuts};
use super::super::decode::{Cx, Decoded, Spanned, merge_blocks};
use super::super::error::Problem;
use super::super::raw::{RawComponent, RawModel};
use super::super::span::Span;
use super::super::{Component, Domain, Model};
use super::{Names, components, declare, derive_loads, domains, finish, name_components, outcome};

/// A model read in pieces, with every problem reported as one pass
/// reports it: in one pass over the pieces when every entry reads under the
/// name its line gives ([`built`]), else in two ([`reported`]). `None` when
/// the text cannot be read in pieces.
pub(in crate::model) fn read(text: &str, cuts: &Cuts) -> Option<Result<Model, Vec<Problem>>> {
    built(text, cuts).or_else(|| reported(text, cuts))
}

/// A model read in one pass over the pieces, each piece's components built
/// as soon as it is read: the names are taken from the lines the entries
/// begin on, and each piece confirms them. Problems are reported as one
/// pass reports them. Once an entry does not read under the name its line
/// gives (which shifts the later components' indexes), the pieces left are
/// only summed up and [`reported`]'s second pass builds the model. `None`
/// when a name is not plain or written twice, or the text is not laid out
/// so (the caller then reads it with [`reported`]).
pub(in crate::model) fn built(text: &str, cuts: &Cuts) -> Option<Result<Model, Vec<Problem>>> {
    let keys = cuts.keys()?;
    let component_names: Vec<Spanned<String>> = keys
        .iter()
        .map(|&span| Spanned {
            value: span.text(text).to_owned(),
            span,
        })
        .collect();
    // One pass reports a name written twice in the mapping as a duplicate
    // key and drops the second entry.
    let mut seen = HashSet::with_capacity(component_names.len());
    if !component_names
        .iter()
        .all(|n| seen.insert(n.value.as_str()))
    {
        return None;
    }
    drop(seen);
    // (The components mapping's span, only used to point at an empty one,
    // is not needed: there are entries.)
    let (root, around) = chunks::read_around(text, cuts, Span::new(cuts.start(), 0))?;
    let mut cx = Cx::new(text);
    let raw = RawModel::decode_in(&root, "the model", &mut cx)?;
    drop(root);
    if let Some(version) = raw.version.as_ref().filter(|v| v.value.0 != 1) {
        cx.report(Problem::version(version.span, &version.value.0.to_string()));
    }
    let names = declare(&raw, &component_names, &mut cx);
    let domains = domains::domains(&raw, &names, &mut cx);
    let mut components: Vec<Component> =
        (0..keys.len()).map(|_| components::placeholder()).collect();
    // Each piece built, its problems kept: its entries' own, then its
    // components'. Once an entry does not read under its line's name, the
    // pieces are only summed up, for the second pass of `reported`.
    let unread = AtomicBool::new(false);
    let pieces = chunks::read_pieces(text, cuts, &mut components, |first, entries, slots| {
        let names_here = &component_names[first..first + entries.len()];
        if !unread.load(Ordering::Relaxed) {
            if entries.iter().zip(names_here).all(|(e, n)| e.reads_as(n)) {
                let ns = (&component_names[..], &names, &domains[..]);
                return Some(build_piece(first, entries, slots, ns, text));
            }
            unread.store(true, Ordering::Relaxed);
        }
        Some(Piece::Unread(summed_up(entries)))
    })?;
    if unread.into_inner() {
        drop((names, domains, components));
        // The pieces built are summed up from their lines.
        let mut first = 0;
        let mut each = Vec::with_capacity(pieces.each.len());
        for piece in pieces.each {
            let summary: Vec<Decoded<usize>> = match piece {
                Piece::Unread(summary) => summary,
                Piece::Built(mut entries, _, count) => component_names[first..first + count]
                    .iter()
                    .enumerate()
                    .map(|(at, name)| {
                        // The piece's entries' problems in order, all on
                        // its first entry.
                        let problems = std::mem::take(&mut entries);
                        Decoded::read(name.clone(), at, problems)
                    })
                    .collect(),
            };
            first += summary.len();
            each.push(summary);
        }
        let first = chunks::Pieces {
            each,
            span: pieces.span,
            nodes: pieces.nodes,
        };
        return built_from(text, cuts, first, around);
    }
    if around + pieces.nodes - 1 > chunks::MAX_NODES {
        return None;
    }
    // In one pass's order: the entries' own problems, those of the text
    // around them and the namespace, the components'.
    let (entries, built): (Vec<_>, Vec<_>) = pieces
        .each
        .into_iter()
        .map(|piece| match piece {
            Piece::Built(entries, built, _) => (entries, built),
            Piece::Unread(_) => (Vec::new(), Vec::new()),
        })
        .unzip();
    let mut problems: Vec<Problem> = entries.into_iter().flatten().collect();
    problems.append(&mut cx.problems);
    problems.extend(built.into_iter().flatten());
    cx.problems = problems;
    let mut model = finish(&raw, names, &component_names, domains, components, &mut cx);
    name_components(&mut model, component_names);
    derive_loads(&mut model, &mut cx);
    Some(outcome(Some(model), cx.problems))
}

/// A model read in pieces with every problem reported, as one pass reports
/// them (the same problems, at the same places, in the same order), in two
/// passes over the pieces (when the names cannot be taken from the lines,
/// an entry does not read, or one is written twice): the first takes each entry's name, whether it
/// reads and its own problems, dropping the raw entries piece by piece; the
/// second, once the namespace is declared, reads each piece again and
/// builds its components. So the raw model never exists whole (it took 3.5
/// kB a component, 14 bytes per byte of YAML with the model beside it).
/// `None` when the text cannot be read in pieces (the caller then reads it
/// in one pass, or says why it cannot).
pub(in crate::model) fn reported(text: &str, cuts: &Cuts) -> Option<Result<Model, Vec<Problem>>> {
    // Each entry's name, problems and place in its piece when it reads.
    let first = chunks::map_pieces(text, cuts, vec![(); cuts.count()], |_, entries, ()| {
        Some(summed_up(entries))
    })?;
    let (_, around) = chunks::read_around(text, cuts, first.span)?;
    built_from(text, cuts, first, around)
}

/// What one piece gave [`built`].
enum Piece {
    /// Its components built: its entries' own problems, its components',
    /// and how many entries it holds.
    Built(Vec<Problem>, Vec<Problem>, usize),
    /// Not built: each entry's name, problems and place in the piece when
    /// it reads.
    Unread(Vec<Decoded<usize>>),
}

/// Each entry's name, problems and place in its piece when it reads, the
/// raw entries dropped.
fn summed_up(entries: Vec<Decoded<RawComponent>>) -> Vec<Decoded<usize>> {
    let read = entries.into_iter().enumerate();
    read.map(|(at, entry)| entry.map(|_| at)).collect()
}

/// One piece's components built into `slots` (the first is component
/// `first`) from entries that each read under its line's name, in the
/// namespace `ns` (every component's name, the names, the domains).
fn build_piece(
    first: usize,
    entries: Vec<Decoded<RawComponent>>,
    slots: &mut [Component],
    ns: (&[Spanned<String>], &Names<'_>, &[Domain]),
    text: &str,
) -> Piece {
    let (component_names, names, domains) = ns;
    let count = entries.len();
    let mut own = Cx::new(text);
    let names_here = &component_names[first..first + count];
    let mut raws: Vec<RawComponent> = entries
        .into_iter()
        .zip(names_here)
        .filter_map(|(entry, name)| entry.read_as(name, &mut own))
        .collect();
    let mut built = Cx::new(text);
    for (at, (component, slot)) in raws.iter_mut().zip(slots).enumerate() {
        let name = &component_names[first + at];
        *slot = components::component_of(first + at, component, name, names, domains, &mut built);
    }
    // The raw entries are freed together, once built (see
    // `components::components`).
    drop(raws);
    Piece::Built(own.problems, built.problems, count)
}

/// The rest of [`reported`] once each piece's entries are summed up
/// (`first`), given the value count of the text around the components.
fn built_from(
    text: &str,
    cuts: &Cuts,
    first: chunks::Pieces<Vec<Decoded<usize>>>,
    around: usize,
) -> Option<Result<Model, Vec<Problem>>> {
    if around + first.nodes - 1 > chunks::MAX_NODES {
        return None;
    }
    let (root, _) = chunks::read_around(text, cuts, first.span)?;
    let mut cx = Cx::new(text);
    // The entries' problems lie between the text before the components and
    // the text after them, so adding them first changes no position.
    let merged = merge_blocks(first.each, &mut cx);
    let raw = RawModel::decode_in(&root, "the model", &mut cx);
    drop(root);
    let Some(mut raw) = raw else {
        return Some(outcome(None, cx.problems));
    };
    raw.components.unreadable = merged.unreadable;
    // The readable entries: their names in model order, and their places
    // in each piece.
    let mut component_names = Vec::new();
    let mut kept = Vec::with_capacity(merged.blocks.len());
    let mut firsts = Vec::with_capacity(merged.blocks.len());
    for block in merged.blocks {
        firsts.push(component_names.len());
        let (names, places): (Vec<_>, Vec<_>) = block.into_iter().unzip();
        component_names.extend(names);
        kept.push(places);
    }
    if let Some(version) = raw.version.as_ref().filter(|v| v.value.0 != 1) {
        cx.report(Problem::version(version.span, &version.value.0.to_string()));
    }
    let names = declare(&raw, &component_names, &mut cx);
    let domains = domains::domains(&raw, &names, &mut cx);
    components::none_declared(&raw, component_names.len(), &mut cx);
    let mut components: Vec<Component> = (0..component_names.len())
        .map(|_| components::placeholder())
        .collect();
    let slots = chunks::split_slots(&mut components, &firsts)?;
    let shares: Vec<_> = slots.into_iter().zip(kept).collect();
    // Each piece's problems in component order, the pieces in model order.
    let built = chunks::map_pieces(text, cuts, shares, |_, entries, ((first, slots), kept)| {
        let mut raws = Vec::with_capacity(kept.len());
        let mut places = kept.iter().copied().peekable();
        for (at, entry) in entries.into_iter().enumerate() {
            if places.next_if_eq(&at).is_some() {
                raws.push(entry.into_item()?);
            }
        }
        if raws.len() != slots.len() {
            return None;
        }
        let mut cx = Cx::new(text);
        for (at, (component, slot)) in raws.iter_mut().zip(slots).enumerate() {
            let name = &component_names[first + at];
            *slot =
                components::component_of(first + at, component, name, &names, &domains, &mut cx);
        }
        // Freed together, once built (see `components::components`).
        drop(raws);
        Some(cx.problems)
    })?;
    for problems in built.each {
        cx.problems.extend(problems);
    }
    let mut model = finish(&raw, names, &component_names, domains, components, &mut cx);
    name_components(&mut model, component_names);
    derive_loads(&mut model, &mut cx);
    Some(outcome(Some(model), cx.problems))
}
