module github.com/dorisdiag/dorisdiag

go 1.26
