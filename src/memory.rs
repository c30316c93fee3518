//! Keeping memory that holds nothing out of the process' footprint: freed blocks between the analysis' phases, and
//! polars' shared zeroes.

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

/// Size of polars' shared zeroes (`GLOBAL_ZERO_SIZE` in polars-buffer 0.55's `buffer.rs`).
const SHARED_ZEROES: usize = 8 << 20;

/// Makes polars' shared zeroes cost no memory once made; call it before anything else when Parquet will be
/// written, since making them briefly adds 8 MiB to whatever the process holds then.
///
/// polars-buffer 0.55's `Buffer::zeroed` hands out slices of one leaked 8 MiB buffer of zeroes, made on first use
/// (`GLOBAL_ZEROES` in `buffer.rs`) and written in full: Rust's allocator zeroes a block aligned to a page
/// itself. Parquet's writer asks for it for any column that is null throughout a row group (`to_leaves` in
/// `polars-parquet`'s `write/pages.rs`), and every ftl table has such columns on some traces. Kept, it was a
/// third of `ftl frames --format parquet`'s peak on a sparse trace. This makes the buffer (if not made yet) and
/// hands its whole pages back to the kernel (`MADV_DONTNEED`): private anonymous pages read as zeroes
/// afterwards, from the kernel's shared zero page, which the process is not charged for. On other systems it
/// only makes the buffer.
pub(crate) fn release_shared_zeroes() {
    let zeroes = polars_buffer::Buffer::<u8>::zeroed(SHARED_ZEROES);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let start = zeroes.as_slice().as_ptr() as usize;
        let first = start.next_multiple_of(page);
        let end = (start + zeroes.len()) / page * page;
        if end > first {
            // SAFETY: the range lies inside `zeroes`, which holds zeroes and is never written (polars shares it
            // read-only; a polars that allocated instead would hand this call a buffer of its own), and the advice
            // leaves every byte of it reading as zero.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_shared_zeroes_still_read_as_zeroes() {
        release_shared_zeroes();
        let zeroes = polars_buffer::Buffer::<u8>::zeroed(SHARED_ZEROES);
        assert!(zeroes.as_slice().iter().all(|&b| b == 0));
        use polars::prelude::{BooleanChunked, ChunkFullNull};
        let bits = BooleanChunked::full_null("x".into(), 100_000);
        assert_eq!(bits.null_count(), 100_000);
    }
}
