import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function SettingsPage() {
  return <FeaturePending titleKey="pages.settings" />;
}
