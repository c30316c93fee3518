//! Compiles `proto/*.proto` into Rust types with prost-build, parsing the .proto files with protox (pure Rust),
//! so no system `protoc` is needed.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(
        ["proto/trace.proto", "proto/perfetto_config.proto"],
        ["proto"],
    )?;
    prost_build::Config::new().compile_fds(fds)?;
    Ok(())
}
