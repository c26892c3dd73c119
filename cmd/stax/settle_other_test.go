//go:build !unix

package main

func settle() {}
