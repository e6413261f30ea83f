module dalkit/tests/targets/goleak

go 1.25
