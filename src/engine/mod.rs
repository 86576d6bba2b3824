//! The availability engine, kept apart from the findings that use it:
//! scenario evaluation (what is up when these things fail).

pub mod scenario;
