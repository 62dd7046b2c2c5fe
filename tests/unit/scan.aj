# scan.aj: the policy tests/unit/scan/test_scan.c walks its temporary trees with,
# compiled as the shipped ones are (tests/tests.mk).
policy scantest {
    network none;
    mask ".env" "*.pem";
    deny "secrets/" "/top/only.key" "*.sec";
    scan prune "node_modules";
    scan depth 4 deny;
}
