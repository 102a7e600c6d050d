import { Notifications } from '@mantine/notifications';

export default function ToastContainer() {
  return <Notifications position="bottom-right" />;
}
