module dalkit/native

go 1.25.0

require github.com/tinylib/msgp v1.6.5

require github.com/philhofer/fwd v1.2.0 // indirect
