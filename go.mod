module github.com/balloc/balloc

go 1.26.8
