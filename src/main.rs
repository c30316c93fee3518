fn main() {
    let t = ftl::load_path(std::path::Path::new(&std::env::args().nth(1).unwrap())).unwrap();
    println!("{} {} {:?}", t.timeline.expected.len(), t.timeline.actual.len(), t.timeline.stats);
}
