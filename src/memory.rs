//! Returning freed memory to the system between the analysis' phases.

/// Gives the heap's free pages back to the system (glibc's `malloc_trim`), so that what a finished phase freed
/// does not count in the next phase's peak. glibc keeps freed blocks resident when they were allocated from its
/// heap rather than mapped, which happens to anything smaller than its dynamic mmap threshold: that threshold
/// rises to the size of the largest mapped block freed so far (up to 32 MiB), so a model's slices often land in
/// the heap. A no-op on other C libraries.
pub(crate) fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only walks glibc's own free lists; it takes no pointer and is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}
