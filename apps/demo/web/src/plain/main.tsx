import { createRoot } from "react-dom/client";
import { PlainChatPage } from "./plain-chat-page.js";
import "./plain.css";

const root = document.getElementById("root");
if (!root) throw new Error("The page has no #root element");
createRoot(root).render(<PlainChatPage />);
