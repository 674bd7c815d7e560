// The printable medication list's button: the browser's print dialog (which also saves as PDF).
document.getElementById("print")?.addEventListener("click", () => window.print());
