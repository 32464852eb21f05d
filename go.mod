module github.com/lantern-if/lantern

go 1.26
