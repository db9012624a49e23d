module github.com/balloc/balloc

go 1.26.8

require gonum.org/v1/gonum v0.17.0 // indirect
