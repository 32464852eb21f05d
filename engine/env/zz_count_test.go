package env

import "testing"

func BenchmarkZZProbeOnly(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.probe("wind house", nil)
	}
}
func BenchmarkZZProbeNoop(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.m.Probe(func() error { return nil })
	}
}
func BenchmarkZZHash(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.worldHash()
	}
}
func BenchmarkZZProbeBadWord(b *testing.B) {
	e := startEnv(b, EnvOptions{Seed: 12})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.probe("take xyzzyq", nil)
	}
}
