//! Review 7's low-severity breaks: names the runner cannot be asked for, and words that must
//! match what gate does.

use crate::common::Fixture;

/// Review 7, c30: a test case whose name holds a line break was written raw into
/// `GATE_SUITE_CASES`, one name a line, so its second line asked for another (decided) case.
/// Such a case cannot be asked for again: the run is a harness error that names it.
#[test]
fn review7_c30_a_case_name_with_a_line_break_is_never_written_into_the_cases_file() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.5}\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n",
    );
    std::fs::write(
        f.path("suite.sh"),
        "[ -s \"$GATE_SUITE_CASES\" ] && cp \"$GATE_SUITE_CASES\" asked.txt\n\
         printf '<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:%02d\">' \"$GATE_TRIAL\" > \"$GATE_JUNIT\"\n\
         printf '<testcase classname=\"t\" name=\"a\"/>' >> \"$GATE_JUNIT\"\n\
         printf '<testcase classname=\"t\" name=\"f\"><failure message=\"x\"/></testcase>' >> \"$GATE_JUNIT\"\n\
         printf '<testcase classname=\"t\" name=\"x&#10;t::f\"/>' >> \"$GATE_JUNIT\"\n\
         printf '</testsuite></testsuites>\\n' >> \"$GATE_JUNIT\"\n",
    )
    .unwrap();
    let out = f.command(&[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("cannot be asked for again: its name holds a line break")
            && stderr.contains("x\\nt::f"),
        "{stderr}"
    );
    assert!(
        !f.path("asked.txt").exists(),
        "no list was handed to the suite"
    );
}
