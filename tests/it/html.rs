//! The HTML report: one offline file (no resource from the network, the same bytes twice, a data block that
//! holds `ftl analyze`'s layers), and its self-test in headless Chromium compared with the CLI's numbers.

use crate::common::{ftl_ok, shared};
use base64::Engine;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The synthetic trace, the three real traces and a gfxinfo capture.
fn inputs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = shared();
    vec![
        root.join("testdata/synthetic_60hz.pftrace"),
        shared.join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace"),
        shared.join("traces/emulator_a12_cpu_sampling_60hz.pftrace"),
        shared.join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace"),
        shared.join("text/linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt"),
    ]
}

fn report(input: &Path, out: &Path) -> String {
    ftl_ok(&[
        "report",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    std::fs::read_to_string(out).expect("read the report")
}

/// The page's data block, inflated.
fn data(page: &str) -> Value {
    let start = page.find("id=\"ftl-data\">").expect("data block") + "id=\"ftl-data\">".len();
    let end = start
        + page[start..]
            .find("</script>")
            .expect("end of the data block");
    let gz = base64::engine::general_purpose::STANDARD
        .decode(page[start..end].trim())
        .expect("base64");
    let mut json = String::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .read_to_string(&mut json)
        .expect("gzip");
    serde_json::from_str(&json).expect("JSON")
}

fn analyze(input: &Path) -> Value {
    serde_json::from_str(&ftl_ok(&[
        "analyze",
        input.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .expect("analyze JSON")
}

#[test]
fn reports_are_one_offline_file_with_the_same_bytes_each_run() {
    let dir = tempfile::tempdir().unwrap();
    for input in inputs() {
        let a = report(&input, &dir.path().join("a.html"));
        let b = report(&input, &dir.path().join("b.html"));
        assert!(a == b, "{}: two runs differ", input.display());
        // Nothing is loaded from elsewhere: no src/href to a URL, no stylesheet link, no url() in the style.
        for pattern in [
            "src=\"http",
            "src='http",
            "href=\"http",
            "<link",
            "url(",
            "@import",
        ] {
            assert!(
                !a.contains(pattern),
                "{}: {pattern} in the page",
                input.display()
            );
        }
        assert!(a.contains("Content-Security-Policy\" content=\"default-src 'none'"));
        assert_eq!(
            a.matches("<script").count(),
            2,
            "the data block and the script"
        );
        // The data block holds analyze's layers, in its order, and one frame per SurfaceFrame / present.
        let d = data(&a);
        let cli = analyze(&input);
        let names = |v: &Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|l| l["process_name"].to_string())
                .collect()
        };
        assert_eq!(
            names(&d["layers"]),
            names(&cli["layers"]),
            "{}",
            input.display()
        );
        let frames = d["frames"]["layer"].as_array().unwrap().len() as u64;
        let expected: u64 = match cli["source"].as_str() {
            Some("perfetto") => cli["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["frames"].as_u64().unwrap())
                .sum(),
            _ => cli["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["presented_frames"].as_u64().unwrap_or(0))
                .sum(),
        };
        assert_eq!(frames, expected, "{}", input.display());
    }
}

#[test]
fn gzipped_reports_inflate_to_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let input = &inputs()[0];
    let page = report(input, &dir.path().join("r.html"));
    ftl_ok(&[
        "report",
        input.to_str().unwrap(),
        "-o",
        dir.path().join("r.html.gz").to_str().unwrap(),
    ]);
    let gz = std::fs::read(dir.path().join("r.html.gz")).unwrap();
    let mut inflated = String::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .read_to_string(&mut inflated)
        .unwrap();
    assert_eq!(inflated, page);
}

/// Debian's Chromium, if installed (`.ci/run` installs it; CI fails without it).
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    assert!(
        found.is_some() || std::env::var_os("CI").is_none(),
        "CI runs the HTML self-test in Chromium, which is not installed"
    );
    found
}

/// The page's self-test result: `report.html#selftest` run in headless Chromium.
fn selftest(browser: &str, page: &Path) -> Value {
    let url = format!("file://{}#selftest", page.display());
    let out = Command::new("timeout")
        .args([
            "120",
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=10000",
        ])
        .args(["--dump-dom", &url])
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"selftest\">")
        .unwrap_or_else(|| panic!("no self-test in {dom}"))
        + "<pre id=\"selftest\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("self-test JSON {text}: {e}"))
}

#[test]
fn the_page_zooms_hovers_and_filters_in_chromium_with_the_clis_numbers() {
    let Some(browser) = chromium() else {
        eprintln!("chromium is not installed: the HTML self-test did not run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for input in inputs() {
        let page = dir.path().join("report.html");
        report(&input, &page);
        let got = selftest(browser, &page);
        let what = input.display().to_string();
        assert_eq!(got["errors"], Value::Array(vec![]), "{what}: {got}");
        assert_eq!(got["blocked"], Value::Array(vec![]), "{what}: {got}");
        let cli = analyze(&input);
        let trace = cli["source"] == "perfetto";
        let layers = got["layers"].as_array().unwrap();
        let cli_layers = cli["layers"].as_array().unwrap();
        assert_eq!(layers.len(), cli_layers.len(), "{what}");
        for (page_layer, l) in layers.iter().zip(cli_layers) {
            if trace {
                assert_eq!(page_layer["layer_name"], l["layer_name"], "{what}");
                assert_eq!(page_layer["frames"], l["frames"], "{what}");
                assert_eq!(page_layer["janky"], l["janky_frames"], "{what}");
            } else {
                assert_eq!(page_layer["layer_name"], l["layer_name"], "{what}");
                assert_eq!(page_layer["frames"], l["presented_frames"], "{what}");
                let perfdog = l["perfdog_jank_active"]
                    .as_u64()
                    .or(l["perfdog_jank"].as_u64())
                    .unwrap_or(0);
                assert_eq!(page_layer["janky"].as_u64(), Some(perfdog), "{what}");
            }
        }
        let hover = &got["hover"];
        if trace {
            // The first janky frame of the first layer with one, as `ftl frames` has it.
            let layer = cli_layers
                .iter()
                .find(|l| l["janky_frames"].as_u64() > Some(0));
            if let Some(layer) = layer {
                let frames = ftl_ok(&["frames", input.to_str().unwrap(), "--format", "json"]);
                let rows: Vec<Value> = serde_json::from_str(&frames).expect("frames JSON");
                let first = rows
                    .iter()
                    .filter(|r| r["layer_name"] == layer["layer_name"] && r["pid"] == layer["pid"])
                    .filter(|r| {
                        ["Self Jank", "Other Jank", "Dropped Frame"]
                            .contains(&r["jank_tag"].as_str().unwrap_or(""))
                    })
                    .min_by_key(|r| r["actual_start_ns"].as_i64())
                    .expect("a janky row");
                assert_eq!(hover["layer_name"], layer["layer_name"], "{what}");
                assert_eq!(
                    hover["surface_frame_token"], first["surface_frame_token"],
                    "{what}"
                );
                assert_eq!(hover["jank_type"], first["jank_type"], "{what}");
                assert_eq!(hover["dur_ns"], first["dur_ns"], "{what}");
                assert_eq!(got["filter"]["layer_name"], layer["layer_name"], "{what}");
                assert_eq!(got["filter"]["frames_drawn"], layer["frames"], "{what}");
            }
        } else {
            // The slowest frame of the capture: its longest present-to-present interval.
            assert!(hover["dur_ns"].as_i64() > Some(0), "{what}: {got}");
            assert_eq!(hover["surface_frame_token"], Value::Null, "{what}");
            let filtered = layers
                .iter()
                .find(|l| l["layer_name"] == got["filter"]["layer_name"])
                .expect("the filtered layer");
            assert_eq!(got["filter"]["frames_drawn"], filtered["frames"], "{what}");
        }
        assert!(got["first_paint_ms"].as_f64().is_some(), "{what}: {got}");
        assert!(got["zoom_ms"].as_f64().is_some(), "{what}: {got}");
    }
}

#[test]
fn redacted_reports_name_no_process_layer_or_section() {
    let dir = tempfile::tempdir().unwrap();
    let input = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let out = dir.path().join("r.html");
    ftl_ok(&[
        "report",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--redact",
    ]);
    let page = std::fs::read_to_string(&out).unwrap();
    let d = data(&page);
    let text = format!("{page}{d}");
    let cli = analyze(&input);
    let mut names: Vec<String> = Vec::new();
    for l in cli["layers"].as_array().unwrap() {
        names.push(l["process_name"].as_str().unwrap().to_string());
        names.push(l["layer_name"].as_str().unwrap().to_string());
        names.extend(
            l["late_causes"]
                .as_object()
                .unwrap()
                .keys()
                .filter_map(|c| c.split_once(':'))
                .map(|(_, d)| d.to_string()),
        );
    }
    names.push("pixel6a_a13_startup_warm_60hz".into());
    for name in names.iter().filter(|n| n.len() > 3) {
        assert!(
            !text.contains(name.as_str()),
            "{name} is in the redacted report"
        );
    }
    // The layers are still there, under placeholders, with their numbers.
    let layers = d["layers"].as_array().unwrap();
    assert_eq!(layers.len(), cli["layers"].as_array().unwrap().len());
    assert!(layers
        .iter()
        .all(|l| l["layer_name"].as_str().unwrap().starts_with("layer ")));
    assert_eq!(layers[1]["janky_frames"], cli["layers"][1]["janky_frames"]);
}

#[test]
fn batch_writes_an_index_whose_rows_open_each_inputs_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    let inputs = inputs();
    let mut args = vec![
        "batch",
        "-q",
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    ftl_ok(&args);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let d = data(&index);
    let rows = d["rows"].as_array().unwrap();
    assert_eq!(rows.len(), inputs.len());
    for row in rows {
        let report = out.join(format!("{}.html", row["trace"].as_str().unwrap()));
        let page = std::fs::read_to_string(&report)
            .unwrap_or_else(|e| panic!("{}: {e}", report.display()));
        assert_eq!(data(&page)["facts"]["path"], row["path"]);
    }
    if let Some(browser) = chromium() {
        let got = selftest(browser, &out.join("index.html"));
        assert_eq!(got["errors"], Value::Array(vec![]), "{got}");
        assert_eq!(got["blocked"], Value::Array(vec![]), "{got}");
        let links: Vec<String> = rows
            .iter()
            .map(|r| format!("{}.html", r["trace"].as_str().unwrap()))
            .collect();
        assert_eq!(got["links"], serde_json::json!(links));
    }
}

#[test]
fn diff_writes_its_verdict_table_and_cdfs_as_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let shared = shared();
    let base = shared.join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    let new = shared.join("traces/emulator_a12_cpu_sampling_60hz.pftrace");
    let page = dir.path().join("diff.html");
    let (base, new) = (base.to_str().unwrap(), new.to_str().unwrap());
    let json: Value =
        serde_json::from_str(&ftl_ok(&["diff", base, new, "--format", "json"])).unwrap();
    ftl_ok(&["diff", base, new, "--html", page.to_str().unwrap()]);
    let d = data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(
        d["diff"], json,
        "the page holds the comparison as --format json writes it"
    );
    assert_eq!(d["base_quantiles_ms"].as_array().unwrap().len(), 1001);
    if let Some(browser) = chromium() {
        let got = selftest(browser, &page);
        assert_eq!(got["errors"], Value::Array(vec![]), "{got}");
        assert_eq!(got["blocked"], Value::Array(vec![]), "{got}");
        assert_eq!(got["verdict"], json["verdict"]);
        let rows = json["rows"].as_array().unwrap();
        assert_eq!(got["rows"].as_u64(), Some(rows.len() as u64));
        let regressed = rows.iter().filter(|r| r["verdict"] == "regressed").count();
        assert_eq!(got["regressed_rows"].as_u64(), Some(regressed as u64));
    }
}

#[test]
fn an_unwritable_report_is_a_one_line_error_naming_the_file() {
    let input = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/synthetic_60hz.pftrace");
    let out = crate::common::ftl(&[
        "report",
        input.to_str().unwrap(),
        "-o",
        "/nonexistent-dir/r.html",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent-dir/r.html"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
